import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Chance
import Foundation
import Watcher
import WatcherFlows

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
            let report: CombineReport
            if !texts.isEmpty {
                guard texts.count == reads.count else {
                    throw CLIError(.invalidInput, "combine multisig: texts with multisig: texts only, not with PSBTs")
                }
                report = try CombineReport(texts: try parsedTexts(texts))
            } else {
                let psbts = try inputs.map { try PSBTFiles.read([$0]) }
                report = try CombineReport(psbts: psbts, archive: PSBTArchive(store: try WatcherContext(global).store))
            }
            let written = try write(report)
            if global.json {
                try JSONOutput.print(report.json(written: written), files: written)
            } else {
                report.lines.forEach(Diagnostics.print)
                OutputOptions.printWritten(written)
            }
        }
    }
}

extension Combine {
    /// The Chance `multisig:` texts, each parsed (docs/architecture.md section 3).
    func parsedTexts(_ texts: [String]) throws -> [ChanceMultisig] {
        try texts.enumerated().map { index, text in
            do { return try ChanceMultisig(string: text) } catch {
                throw CLIError(.invalidInput, "\(inputs[index]): \(error)")
            }
        }
    }

    /// Writes the combined PSBT (or `multisig:` text) to the outputs, or to stdout when none is given.
    func write(_ report: CombineReport) throws -> [String] {
        if let psbt = report.psbt { return try PSBTFiles.write(psbt, options: output, json: global.json) }
        let text = report.chance?.description ?? ""
        if output.isRequested {
            return try output.write(.chanceMultisig(text), fileBytes: Array((text + "\n").utf8), json: global.json)
        }
        if !global.json { print(text) }
        return []
    }
}
