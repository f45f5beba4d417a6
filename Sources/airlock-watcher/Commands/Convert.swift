import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Chance
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher convert IN… --to FORMAT`: any payload either side reads, re-encoded for the other side or another
/// wallet (issue 18 item 6; docs/watcher.md "convert").
struct Convert: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Re-encode a PSBT or account between UR, BBQr, base64, hex and binary, files and QR frames.",
        discussion: """
            Reads what any IN holds (a file of binary, base64, hex or UR/BBQr part lines, - for stdin, PNG, JPEG or \
            GIF images of QR codes in any order, a video) and writes the same payload in the form --to names: ur \
            (ur:crypto-psbt, or --ur-type psbt), bbqr (Coldcard's BBQr, zlib-compressed when that is shorter), \
            base64, hex or binary. The default keeps the framing the input came in. --psbt-version 0|2 converts a \
            PSBT between BIP174 and BIP370. --kind psbt turns a Chance wallet multisig: text into a PSBT (with the \
            previous transactions and key derivations of --wallet when its data directory has one), --kind \
            multisig a PSBT of one legacy P2SH multisig into a multisig: text. A PSBT is checked to parse; it is otherwise passed through unchanged, \
            byte for byte. Accounts read from UR (crypto-account, crypto-output, output-descriptor, \
            account-descriptor) become descriptor text, one line each, for bbqr and binary. The result goes to \
            --out FILE (the encoded text, one part a line, or the bytes for binary), --qr PATH.png|.gif, \
            --terminal, or stdout; --qr-density sizes UR fragments and BBQr parts for the reader.

            Examples:
              airlock-watcher convert signed-frames/ --to base64
              airlock-watcher convert unsigned.psbt --to ur --qr for-sparrow.gif
              airlock-watcher convert psbt.txt --to bbqr --qr-density high --qr frames.png
              airlock-watcher convert v2.psbt --psbt-version 0 --to binary --out v0.psbt
              airlock-watcher convert photo.jpg --to hex --json
              airlock-watcher convert chance.txt --kind psbt --wallet team --to ur --qr for-sparrow.gif
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The payload: a file, '-' for stdin, or images (or a directory of them) of its QR codes.")
    var input: [String]

    @Option(
        name: .customLong("to"),
        help: ArgumentHelp(
            "The form to write: ur, bbqr, base64, hex or binary (default: the framing the input came in).",
            valueName: "ur|bbqr|base64|hex|binary"))
    var format: ConvertFormat?

    @Option(help: ArgumentHelp("Write the PSBT as BIP174 version 0 or BIP370 version 2.", valueName: "0|2"))
    var psbtVersion: Int?

    @Option(
        help: ArgumentHelp(
            "Change what the payload is: psbt (from a multisig: text) or multisig (a multisig: text from a PSBT).",
            valueName: "psbt|multisig"))
    var kind: ConvertKind?

    @Option(
        help: ArgumentHelp("UR type of a PSBT: crypto-psbt (Sparrow, Keystone) or psbt (UR 2.0).", valueName: "TYPE"))
    var urType = "crypto-psbt"

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let psbtVersion, ![0, 2].contains(psbtVersion) { throw ValidationError("--psbt-version must be 0 or 2") }
        guard ["crypto-psbt", "psbt"].contains(urType) else { throw ValidationError("--ur-type: crypto-psbt or psbt") }
        if let format, let qrFormat = output.qrFormat, let framing = format.qrFormat, framing != qrFormat {
            throw ValidationError("--to \(format.rawValue) and --qr-format \(qrFormat.rawValue) disagree; give one")
        }
        if format == .binary, !output.isRequested, !global.json, isatty(STDOUT_FILENO) == 1 {
            throw ValidationError("--to binary writes bytes: give --out FILE or redirect stdout")
        }
    }

    func run() async throws {
        try await ErrorReporting.run {
            let read = try InputReader.read(input)
            let conversion = PayloadConversion(
                kind: kind, psbtVersion: psbtVersion, format: format,
                qrFraming: output.qrFormat.map(ConvertFormat.init),
                encoder: FrameEncoder(density: output.qrDensity, urExtraParts: 0, urPSBTType: urType),
                qr: output.qr != nil || output.terminal, loops: output.loops)
            var wallet: (store: Store, record: WalletRecord)?
            if kind == .psbt, case .chanceMultisig = read.payload { wallet = try Self.walletRecord(global) }
            let report = try conversion.run(
                read.payload, framing: read.format, codes: read.codeCount, wallet: wallet, adapt: Self.adapted)
            let written = try output.write(
                report.payload, fileBytes: report.fileBytes, json: global.json, texts: report.qrTexts)
            if global.json {
                try JSONOutput.print(report.json(written: written), files: written)
                return
            }
            if !output.isRequested {
                if let texts = report.texts {
                    for text in texts { print(text) }
                } else {
                    StandardOutput.write(Data(report.fileBytes))
                }
            }
            Diagnostics.print(report.line)
            OutputOptions.printWritten(written)
        }
    }
}

extension Convert {
    /// The wallet `--wallet` names, or the only wallet of an existing data directory; nil when there is none.
    static func walletRecord(_ global: GlobalOptions) throws -> (store: Store, record: WalletRecord)? {
        let path = (global.resolvedDataDir as NSString).appendingPathComponent("wallet.sqlite")
        guard FileManager.default.fileExists(atPath: path) else {
            if let name = global.wallet {
                throw CLIError(.usage, "no wallet \(name): the data directory has no database")
            }
            return nil
        }
        let context = try WatcherContext(global)
        if global.wallet == nil, try context.store.wallets().count != 1 { return nil }
        return (context.store, try context.wallet())
    }

    /// Turns a UR account into descriptor text when the target is not UR (BBQr and files carry text, not CBOR).
    static func adapted(_ payload: Payload, to format: ConvertFormat) throws -> Payload {
        guard format != .ur else { return payload }
        switch payload {
        case .cryptoOutput(let output): return .descriptor(try WalletImport.descriptor(output))
        case .outputDescriptor(let output): return .descriptor(try WalletImport.descriptor(output))
        case .cryptoAccount(let account):
            return .descriptor(try account.outputs.map(WalletImport.descriptor).joined(separator: "\n"))
        case .accountDescriptor(let account):
            return .descriptor(try account.descriptors.map(WalletImport.descriptor).joined(separator: "\n"))
        default: return payload
        }
    }
}

extension ConvertFormat: ExpressibleByArgument {
    init(_ option: QRFormatOption) {
        switch option {
        case .ur: self = .ur
        case .bbqr: self = .bbqr
        case .base64: self = .base64
        }
    }

    /// The matching `--qr-format`, for the formats that are QR framings.
    var qrFormat: QRFormatOption? {
        switch self {
        case .ur: .ur
        case .bbqr: .bbqr
        case .base64: .base64
        case .hex, .binary: nil
        }
    }
}

extension ConvertKind: ExpressibleByArgument {}
