import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Chance
import Foundation
import Watcher

/// `airlock-watcher combine IN …`: the BIP174 Combiner over several signers' PSBTs.
struct Combine: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "combine",
        abstract: "Merge the partial signatures of several PSBTs of the same transaction.",
        discussion: """
            Each IN is one PSBT: a file (binary, base64 or hex), - for stdin, one PNG (a single QR code or a sheet), \
            or a directory of PNG frames of one animated QR series. When this watcher created the PSBT, its kept \
            copy is merged in as well, so signers may return trimmed (signatures-only) PSBTs.

            Chance wallet multisig: texts of the same transaction are combined the same way (every key position \
            of every text, each signature checked against its key and the transaction); the answer is a multisig: \
            text, printed when no output is given.

            Examples:
              airlock-watcher combine signed-alice.psbt signed-bob-frames/ --out combined.psbt
              airlock-watcher combine a.psbt b.png --qr combined.png
              airlock-watcher combine chance-alice.txt chance-bob.png --out chance.txt
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The PSBTs: files, '-', single PNGs or directories of PNG frames (one PSBT each).")
    var inputs: [String]

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one PSBT") }
        guard inputs.filter({ $0 == "-" }).count <= 1 else { throw ValidationError("'-' (stdin) can be given once") }
    }

    func run() async throws {
        try await ErrorReporting.run {
            let reads = try inputs.map { try InputReader.read([$0], expecting: [.psbt, .chanceMultisig]) }
            let texts = reads.compactMap { read -> String? in
                if case .chanceMultisig(let text) = read.payload { return text }
                return nil
            }
            if !texts.isEmpty {
                guard texts.count == reads.count else {
                    throw CLIError(.invalidInput, "combine multisig: texts with multisig: texts only, not with PSBTs")
                }
                return try combineChance(texts)
            }
            let psbts = try inputs.map { try PSBTFiles.read([$0]) }
            var combined = psbts[0]
            if psbts.count > 1 {
                do { combined = try combined.combined(with: Array(psbts.dropFirst())) } catch PSBTError.combineMismatch
                {
                    throw CLIError(.invalidInput, "the PSBTs are for different transactions")
                }
            }
            let context = try WatcherContext(global)
            let (result, usedArchive) = try PSBTArchive(store: context.store).completed(combined)
            let written = try PSBTFiles.write(result, options: output, json: global.json)
            let signatures = result.inputs.map { $0.map.entries.filter(isSignature).count }
            if global.json {
                try JSONOutput.print(
                    CombineJSON(
                        txid: try result.unsignedTxid().hexString, psbt: result.base64String, written: written,
                        signatures: signatures, usedKeptPsbt: usedArchive), files: written)
            } else {
                Diagnostics.print(
                    "combined \(psbts.count) PSBT(s)" + (usedArchive ? " with the one this watcher created" : ""))
                Diagnostics.print("signatures per input: \(signatures.map(String.init).joined(separator: ", "))")
                OutputOptions.printWritten(written)
            }
        }
    }
}

extension Combine {
    /// Combines Chance `multisig:` texts (docs/architecture.md section 3).
    func combineChance(_ texts: [String]) throws {
        var parsed: [ChanceMultisig] = []
        for (index, text) in texts.enumerated() {
            do { parsed.append(try ChanceMultisig(string: text)) } catch {
                throw CLIError(.invalidInput, "\(inputs[index]): \(error.description)")
            }
        }
        let combined: ChanceMultisig
        do { combined = try parsed[0].combined(with: Array(parsed.dropFirst())) } catch {
            throw CLIError(.invalidInput, error.description)
        }
        let answer = combined.description
        var written: [String] = []
        if output.isRequested {
            written = try output.write(
                .chanceMultisig(answer), fileBytes: Array((answer + "\n").utf8), json: global.json)
        } else if !global.json {
            print(answer)
        }
        let signatures = Array(repeating: combined.signatures.count, count: combined.transaction.inputs.count)
        if global.json {
            let psbt = try combined.psbt()
            var object = CombineJSON(
                txid: combined.transaction.txid.hexString, psbt: psbt.base64String, written: written,
                signatures: signatures, usedKeptPsbt: false)
            object.multisigText = answer
            object.complete = combined.isComplete
            try JSONOutput.print(object, files: written)
        } else {
            Diagnostics.print(
                "combined \(texts.count) multisig: text(s): key positions "
                    + combined.signedPositions.map(String.init).joined(separator: ", ")
                    + (combined.isComplete
                        ? " (complete: \(combined.threshold) of \(combined.keys.count))"
                        : " (\(combined.signatures.count) of the \(combined.threshold) needed)"))
            OutputOptions.printWritten(written)
        }
    }
}

/// Whether a PSBT input entry is a signature or a final script.
func isSignature(_ entry: PSBTEntry) -> Bool {
    [
        PSBTKeyType.Input.partialSig, PSBTKeyType.Input.tapKeySig, PSBTKeyType.Input.tapScriptSig,
        PSBTKeyType.Input.finalScriptWitness, PSBTKeyType.Input.finalScriptSig,
    ].contains(entry.keyType)
}
