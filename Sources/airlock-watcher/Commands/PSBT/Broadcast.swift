import ArgumentParser
import Bitcoin
import CLISupport
import ChainBackends
import ChainCore
import Chance
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher broadcast IN …`: combine, finalize, extract and send a signed transaction.
struct Broadcast: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broadcast",
        abstract: "Send a signed PSBT (or raw transaction) to the node.",
        discussion: """
            IN is a file (PSBT in binary/base64/hex, or a raw transaction in hex), - for stdin, or PNG images (or \
            a directory) of its QR codes. Each IN is one PSBT; several are combined first. A trimmed \
            (signatures-only) PSBT from the signer is combined with the PSBT this watcher created. What is sent \
            (outputs, fee) is printed on stderr before sending. A rejection by the node exits 5 with its reason \
            (a timelocked recovery spend sent too early: the node's non-BIP68-final or non-final, explained).

            A Chance wallet multisig: text (or several of one transaction, combined) is sent once enough key \
            positions have signed; an incomplete text exits 2 naming how many signatures are missing.

            Examples:
              airlock-watcher broadcast signed.psbt
              airlock-watcher broadcast signed-01of03.png signed-02of03.png signed-03of03.png
              airlock-watcher broadcast chance-alice.txt chance-bob.txt
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The signed PSBT: files, '-', or PNG images (or a directory of them).")
    var inputs: [String]

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let wallet = try context.wallet()
            let report = try await BroadcastFlow(store: context.store, wallet: wallet).run(
                try readInputs(), connect: { try await context.connect(wallet).1 },
                announce: { $0.forEach(Diagnostics.print) })
            if let note = report.note { Diagnostics.print(note) }
            if global.json { try JSONOutput.print(report.json) } else { print(report.txid.hexString) }
        }
    }

    /// The PSBT (several combined) or raw transaction of the arguments.
    ///
    /// A directory or a set of PNG images is one
    /// PSBT; otherwise each file is one.
    private func readInputs() throws -> SignedInput {
        let allImages = inputs.allSatisfy { $0.lowercased().hasSuffix(".png") }
        let groups: [[String]] = allImages ? [inputs] : inputs.map { [$0] }
        var psbts: [PSBT] = []
        var texts: [ChanceMultisig] = []
        for group in groups {
            let read = try InputReader.read(group, expecting: [.psbt, .transaction, .chanceMultisig])
            switch read.payload {
            case .chanceMultisig(let text):
                do { texts.append(try ChanceMultisig(string: text)) } catch {
                    throw CLIError(.invalidInput, "\(group.joined(separator: " ")): \(error.description)")
                }
            case .psbt(let bytes):
                do { psbts.append(try PSBT(serialized: bytes)) } catch {
                    throw CLIError(.invalidInput, "\(group.joined(separator: " ")): not a valid PSBT: \(error)")
                }
            case .transaction(let bytes):
                guard groups.count == 1 else { throw CLIError(.usage, "give one raw transaction, or PSBTs to combine") }
                do { return .transaction(try Transaction(serialized: bytes)) } catch {
                    throw CLIError(.invalidInput, "not a valid transaction: \(error)")
                }
            default:
                throw CLIError(.invalidInput, "expected a signed PSBT, got a \(read.payload.kind.rawValue)")
            }
        }
        if let first = texts.first {
            guard psbts.isEmpty else {
                throw CLIError(.invalidInput, "give multisig: texts or PSBTs, not both")
            }
            do { return .chance(try first.combined(with: Array(texts.dropFirst()))) } catch {
                throw CLIError(.invalidInput, error.description)
            }
        }
        guard var first = psbts.first else { throw CLIError(.usage, "no input") }
        if psbts.count > 1 {
            do { first = try first.combined(with: Array(psbts.dropFirst())) } catch {
                throw CLIError(.invalidInput, "the PSBTs are for different transactions")
            }
        }
        return .psbt(first)
    }
}
