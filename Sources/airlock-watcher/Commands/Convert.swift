import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher

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

    /// `convert --json`.
    struct Report: Encodable {
        let kind: String
        let inputFormat: String
        let format: String
        @NullEncoded var psbtVersion: Int?
        let bytes: Int
        let parts: Int
        @NullEncoded var texts: [String]?
        let written: [String]
    }

    func run() async throws {
        try await ErrorReporting.run {
            let read = try InputReader.read(input)
            var payload = try ConvertPayload.changed(read.payload, to: kind, global: global)
            payload = try ConvertPayload.normalized(payload, psbtVersion: psbtVersion)
            let target = format ?? output.qrFormat.map(ConvertFormat.init) ?? ConvertFormat(read.format)
            payload = try ConvertPayload.adapted(payload, to: target)
            let encoder = FrameEncoder(density: output.qrDensity, urExtraParts: 0, urPSBTType: urType)
            let texts = try ConvertPayload.texts(payload, format: target, encoder: encoder)
            let fileBytes =
                texts.map { Array(($0.joined(separator: "\n") + "\n").utf8) } ?? ConvertPayload.bytes(payload)
            var qrTexts: [String]?
            if output.qr != nil || output.terminal {
                var looping = encoder
                // Fountain parts past the first pass only for a looping display (GIF, --animate); still PNGs carry
                // the parts themselves, so "2 of 2" under a frame is UR part 2-2.
                if output.loops { looping.urExtraParts = nil }
                let framing = target.qrFormat ?? output.qrFormat ?? ConvertFormat(read.format).qrFormat ?? .ur
                qrTexts = try ConvertPayload.texts(
                    payload, format: ConvertFormat(framing), encoder: looping, forQR: true)
            }
            let written = try output.write(payload, fileBytes: fileBytes, json: global.json, texts: qrTexts)
            if global.json {
                try JSONOutput.print(
                    Report(
                        kind: payload.kind.rawValue, inputFormat: read.format.rawValue, format: target.rawValue,
                        psbtVersion: ConvertPayload.psbtVersion(payload), bytes: ConvertPayload.bytes(payload).count,
                        parts: texts?.count ?? 1, texts: texts, written: written), files: written)
                return
            }
            if !output.isRequested {
                if let texts {
                    for text in texts { print(text) }
                } else {
                    StandardOutput.write(Data(fileBytes))
                }
            }
            Diagnostics.print(
                "\(payload.kind.rawValue) read as \(read.format.rawValue)"
                    + (read.codeCount > 0 ? " from \(read.codeCount) QR codes" : "")
                    + ", written as \(target.rawValue)" + Self.partsNote(texts: texts, codes: qrTexts))
            OutputOptions.printWritten(written)
        }
    }
}

extension Convert {
    /// " (2 parts)", or " (2 parts; 4 QR codes)" when a looping display carries more codes than the text has parts.
    static func partsNote(texts: [String]?, codes: [String]?) -> String {
        func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }
        var notes: [String] = []
        if let texts { notes.append(count(texts.count, "part")) }
        if let codes, codes.count != texts?.count { notes.append(count(codes.count, "QR code")) }
        return notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
    }
}

/// The forms `convert --to` writes.
enum ConvertFormat: String, CaseIterable, ExpressibleByArgument {
    case ur, bbqr, base64, hex, binary

    /// The framing of the input kept as the output's (formats without a `--to` name become binary or base64).
    init(_ framing: FrameFormat) {
        switch framing {
        case .ur: self = .ur
        case .bbqr: self = .bbqr
        case .base64, .specter, .base43: self = .base64
        case .hex: self = .hex
        case .binary, .plain: self = .binary
        }
    }

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

/// What `convert --kind` turns a payload into.
enum ConvertKind: String, CaseIterable, ExpressibleByArgument {
    case psbt, multisig
}

/// What `convert` does to a payload; one switch per step, so a new payload kind is one case in each.
enum ConvertPayload {
    /// A Chance `multisig:` text as a PSBT, or a PSBT as a `multisig:` text (docs/watcher.md, "Chance multisig:
    /// texts"); nil `kind` or a payload already of that kind passes unchanged.
    ///
    /// Text to PSBT uses the `--wallet` of the data directory when one was named or the directory holds one wallet
    /// (its previous transactions as `non_witness_utxo` and every key's derivation), else the bare conversion.
    ///
    /// - Throws: `CLIError` invalid input for a text or PSBT that does not convert, or another payload kind.
    static func changed(_ payload: Payload, to kind: ConvertKind?, global: GlobalOptions) throws -> Payload {
        switch (kind, payload) {
        case (nil, _), (.psbt, .psbt), (.multisig, .chanceMultisig): return payload
        case (.psbt, .chanceMultisig(let string)):
            let text: ChanceMultisig
            do { text = try ChanceMultisig(string: string) } catch {
                throw CLIError(.invalidInput, "not a valid multisig: text: \(error)")
            }
            if let wallet = try walletRecord(global) {
                do {
                    return .psbt(
                        try ChanceConversion.psbt(from: text, store: wallet.store, wallet: wallet.record).serialized())
                } catch { throw CLIError(.invalidInput, "cannot make a PSBT of the multisig: text: \(error)") }
            }
            do { return .psbt(try text.psbt().serialized()) } catch {
                throw CLIError(.invalidInput, "cannot make a PSBT of the multisig: text: \(error)")
            }
        case (.multisig, .psbt(let bytes)):
            do {
                let psbt = try PSBT(serialized: bytes)
                return .chanceMultisig(try ChanceConversion.text(from: psbt).description)
            } catch {
                throw CLIError(.invalidInput, "cannot write the PSBT as a multisig: text: \(error)")
            }
        default:
            throw CLIError(
                .invalidInput,
                "--kind \(kind?.rawValue ?? "") takes a PSBT or a multisig: text, not a \(payload.kind.rawValue)")
        }
    }

    /// The wallet `--wallet` names, or the only wallet of an existing data directory; nil when there is none.
    private static func walletRecord(_ global: GlobalOptions) throws -> (store: Store, record: WalletRecord)? {
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

    /// Checks a PSBT (it must parse) and converts it to `psbtVersion`; other kinds pass unchanged.
    ///
    /// - Throws: `CLIError` invalid input for a PSBT that does not parse or convert, or `--psbt-version` with a
    ///   payload that is not a PSBT.
    static func normalized(_ payload: Payload, psbtVersion: Int?) throws -> Payload {
        guard case .psbt(let bytes) = payload else {
            if psbtVersion != nil {
                throw CLIError(
                    .invalidInput, "--psbt-version applies to a PSBT; the input holds a \(payload.kind.rawValue)")
            }
            return payload
        }
        let psbt: PSBT
        do { psbt = try PSBT(serialized: bytes) } catch {
            throw CLIError(.invalidInput, "not a valid PSBT: \(error)")
        }
        guard let psbtVersion, psbtVersion != Int(psbt.version) else { return payload }
        do {
            let converted = psbtVersion == 2 ? try psbt.convertedToVersion2() : try psbt.convertedToVersion0()
            return .psbt(converted.serialized())
        } catch {
            throw CLIError(.invalidInput, "cannot convert the PSBT to version \(psbtVersion): \(error)")
        }
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

    /// The payload's bytes: a PSBT's or transaction's, or the UTF-8 of text.
    static func bytes(_ payload: Payload) -> [UInt8] {
        switch payload {
        case .psbt(let b), .transaction(let b), .bytes(let b): b
        case .descriptor(let t), .json(let t), .text(let t), .address(let t), .chanceMultisig(let t): Array(t.utf8)
        default: []
        }
    }

    /// The PSBT's version, for `--json`.
    static func psbtVersion(_ payload: Payload) -> Int? {
        guard case .psbt(let bytes) = payload, let psbt = try? PSBT(serialized: bytes) else { return nil }
        return Int(psbt.version)
    }

    /// The texts of `payload` in `format` (nil for binary): UR parts (lower case in files, upper case in QR codes),
    /// BBQr parts, or one base64 or hex line; in QR codes base64 and hex must fit one code.
    ///
    /// - Throws: `CLIError` invalid input when the format cannot carry this kind of payload.
    static func texts(
        _ payload: Payload, format: ConvertFormat, encoder: FrameEncoder, forQR: Bool = false
    ) throws -> [String]? {
        func fail(_ detail: String) -> CLIError {
            CLIError(.invalidInput, "cannot write a \(payload.kind.rawValue) as \(format.rawValue)\(detail)")
        }
        switch format {
        case .ur, .bbqr:
            do {
                let frames = try encoder.frames(for: payload, format: format == .ur ? .ur : .bbqr)
                return format == .ur && !forQR ? frames.map { $0.lowercased() } : frames
            } catch .unsupportedFrameFormat {
                throw fail(format == .ur ? ": UR has no type for it here (use --to bbqr or binary)" : "")
            } catch {
                throw fail(": \(error)")
            }
        case .base64, .hex:
            let raw: [UInt8]
            switch payload {
            case .psbt(let b), .transaction(let b), .bytes(let b): raw = b
            default: throw fail(" (base64 and hex carry bytes: a PSBT or transaction; use --to bbqr or binary)")
            }
            let text = format == .base64 ? TextCodec.base64String(raw) : TextCodec.hexString(raw)
            if forQR, text.utf8.count > FrameEncoder.singleCodeByteLimit {
                throw fail(
                    " in one QR code: \(text.utf8.count) characters, more than \(FrameEncoder.singleCodeByteLimit) "
                        + "(use --to ur or bbqr for QR frames)")
            }
            return [text]
        case .binary:
            if forQR { return try texts(payload, format: .ur, encoder: encoder, forQR: true) }
            switch payload {
            case .psbt, .transaction, .bytes, .descriptor, .json, .text, .address, .chanceMultisig: return nil
            default: throw fail(" (it has no byte form; a UR type keeps it with --to ur)")
            }
        }
    }
}
