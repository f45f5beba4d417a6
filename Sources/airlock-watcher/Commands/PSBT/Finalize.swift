import ArgumentParser
import Bitcoin
import CLISupport
import Descriptors
import Foundation
import Watcher

/// `airlock-watcher finalize IN`: the BIP174 Finalizer.
struct Finalize: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "finalize",
        abstract: "Finalize a signed PSBT (final scriptSig and witness for every input).",
        discussion: """
            IN is a file, - for stdin, or PNG images of the PSBT's QR codes. A trimmed (signatures-only) PSBT is \
            first combined with the PSBT this watcher created. The finalized PSBT goes to --out/--qr, else as base64 \
            to stdout; --json adds the signed transaction in hex.

            Examples:
              airlock-watcher finalize signed.psbt --out final.psbt
              airlock-watcher finalize signed-frames/ --json
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The signed PSBT: a file, '-', or PNG images (or a directory of them).")
    var input: [String]

    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let descriptors = (try? context.wallet()).flatMap { try? Account(record: $0) }.map(\.descriptors) ?? []
            let finalized = try finalizedPSBT(
                try PSBTFiles.read(input), store: context.store, descriptors: descriptors)
            let transaction = try finalized.extractTransaction()
            let written = try PSBTFiles.write(finalized, options: output, json: global.json)
            if global.json {
                try JSONOutput.print(
                    FinalizeJSON(
                        txid: transaction.txid.hexString, psbt: finalized.base64String,
                        transaction: transaction.serialized().hexString, written: written), files: written)
            } else {
                Diagnostics.print("finalized \(transaction.txid.hexString) (\(transaction.inputs.count) input(s))")
                OutputOptions.printWritten(written)
            }
        }
    }
}

/// `psbt` combined with the watcher's kept copy and finalized; inputs of a `wsh` miniscript policy among
/// `descriptors` (the wallet's) are satisfied by the policy with the transaction's nSequence and nLockTime.
///
/// - Throws: `CLIError` (invalid input) naming the inputs that lack signatures or data, or whose policy path needs a
///   timelock the transaction does not meet.
func finalizedPSBT(_ psbt: PSBT, store: Store, descriptors: [Descriptor] = []) throws -> PSBT {
    var (result, _) = try PSBTArchive(store: store).completed(psbt)
    let unsigned = result.inputs.allSatisfy { input in
        !input.isFinalized && input.partialSignatures.isEmpty && input.tapKeySignature == nil
            && input.tapScriptSignatures.isEmpty
    }
    if unsigned, !result.inputs.isEmpty {
        throw CLIError(.invalidInput, "this PSBT is not signed yet: sign it with airlock-signer first")
    }
    var problems: [String] = []
    let policies = descriptors.filter { $0.miniscript != nil }
    for index in result.inputs.indices where !result.inputs[index].isFinalized {
        if !policies.isEmpty, result.miniscriptMatch(ofInput: index, descriptors: policies) != nil {
            do { try result.finalizeMiniscriptInput(index, descriptors: policies) } catch {
                problems.append("input \(index): \(error)")
            }
            continue
        }
        do { try result.finalizeInput(index) } catch {
            // A taproot leaf the generic finalizer does not know may be a miniscript leaf of a stored wallet
            // (docs/miniscript.md, "Tapscript"): satisfied by its policy with the transaction's locks.
            if !result.inputs[index].tapLeafScripts.isEmpty, !tapMiniscriptDescriptors(store).isEmpty {
                do {
                    try result.finalizeTapMiniscriptInput(index, descriptors: tapMiniscriptDescriptors(store))
                    continue
                } catch let tapError {
                    problems.append("input \(index): \(tapError)")
                    continue
                }
            }
            problems.append("input \(index): \(error)")
        }
    }
    result.canonicalize()
    guard problems.isEmpty else {
        throw CLIError(.invalidInput, "the PSBT cannot be finalized: " + problems.joined(separator: "; "))
    }
    return result
}

/// The descriptors of the stored wallets that have miniscript leaves in a `tr()` tree.
func tapMiniscriptDescriptors(_ store: Store) -> [Descriptor] {
    let wallets = (try? store.wallets()) ?? []
    return wallets.flatMap { $0.descriptors.values }.compactMap { try? Descriptor(string: $0) }
        .filter { !$0.tapLeafMiniscripts.isEmpty }
}
