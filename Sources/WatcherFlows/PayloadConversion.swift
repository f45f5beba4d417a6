import AirgapTransport
import Bitcoin
import Chance
import Foundation
import Watcher

/// The forms `convert --to` writes.
public enum ConvertFormat: String, CaseIterable, Sendable {
    case ur, bbqr, base64, hex, binary

    /// The framing of the input kept as the output's (formats without a `--to` name become binary or base64).
    public init(_ framing: FrameFormat) {
        switch framing {
        case .ur: self = .ur
        case .bbqr: self = .bbqr
        case .base64, .specter, .base43: self = .base64
        case .hex: self = .hex
        case .binary, .plain: self = .binary
        }
    }

    /// Whether the format is a QR framing (UR, BBQr, base64), which `--qr-format` can also name.
    public var isQRFraming: Bool { self != .hex && self != .binary }
}

/// What `convert --kind` turns a payload into.
public enum ConvertKind: String, CaseIterable, Sendable {
    case psbt, multisig
}

/// Why a payload does not convert; every case is invalid input (exit 2 on the command line).
public struct ConversionError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}

/// `convert`: a payload either side reads, re-encoded for the other side or another wallet.
///
/// Issue 18 item 6; docs/watcher.md "convert". One switch per step, so a new payload kind is one case in each.
public struct PayloadConversion: Sendable {
    /// `--kind`: what the payload becomes (nil: what it is).
    public var kind: ConvertKind?
    /// `--psbt-version`: 0 or 2 (nil: as read).
    public var psbtVersion: Int?
    /// `--to` (nil: the `--qr-format` framing, else the framing the input came in).
    public var format: ConvertFormat?
    /// `--qr-format`, as a format.
    public var qrFraming: ConvertFormat?
    public var encoder: FrameEncoder
    /// Whether QR codes are written (`--qr`, `--terminal`), and whether they loop (a GIF, `--animate`).
    public var qr: Bool
    public var loops: Bool

    public init(
        kind: ConvertKind?, psbtVersion: Int?, format: ConvertFormat?, qrFraming: ConvertFormat?,
        encoder: FrameEncoder, qr: Bool, loops: Bool
    ) {
        self.kind = kind
        self.psbtVersion = psbtVersion
        self.format = format
        self.qrFraming = qrFraming
        self.encoder = encoder
        self.qr = qr
        self.loops = loops
    }

    /// Converts `payload`, read in `framing` from `codes` QR codes; `wallet` gives a `multisig:` text's PSBT the
    /// previous transactions and key derivations; `adapt` turns a UR account into descriptor text for a format that
    /// is not UR.
    ///
    /// - Throws: `ConversionError`, or what `adapt` throws.
    public func run(
        _ payload: Payload, framing: FrameFormat, codes: Int, wallet: (store: Store, record: WalletRecord)?,
        adapt: (Payload, ConvertFormat) throws -> Payload
    ) throws -> ConversionReport {
        var converted = try Self.changed(payload, to: kind, wallet: wallet)
        converted = try Self.normalized(converted, psbtVersion: psbtVersion)
        let target = format ?? qrFraming ?? ConvertFormat(framing)
        converted = try adapt(converted, target)
        let texts = try Self.texts(converted, format: target, encoder: encoder)
        var qrTexts: [String]?
        if qr {
            var looping = encoder
            // Fountain parts past the first pass only for a looping display (GIF, --animate); still PNGs carry
            // the parts themselves, so "2 of 2" under a frame is UR part 2-2.
            if loops { looping.urExtraParts = nil }
            let kept = ConvertFormat(framing)
            let qrFormat = [target, qrFraming, kept].compactMap { $0 }.first(where: \.isQRFraming) ?? .ur
            qrTexts = try Self.texts(converted, format: qrFormat, encoder: looping, forQR: true)
        }
        return ConversionReport(
            payload: converted, inputFormat: framing, codes: codes, format: target, texts: texts, qrTexts: qrTexts)
    }

    /// A Chance `multisig:` text as a PSBT, or a PSBT as a `multisig:` text.
    ///
    /// See docs/watcher.md, "Chance multisig: texts". Nil `kind` or a payload already of that kind passes unchanged.
    /// Text to PSBT uses `wallet` when given (its previous transactions as `non_witness_utxo` and every key's
    /// derivation), else the bare conversion.
    static func changed(
        _ payload: Payload, to kind: ConvertKind?, wallet: (store: Store, record: WalletRecord)?
    ) throws(ConversionError) -> Payload {
        switch (kind, payload) {
        case (nil, _), (.psbt, .psbt), (.multisig, .chanceMultisig): return payload
        case (.psbt, .chanceMultisig(let string)):
            let text: ChanceMultisig
            do { text = try ChanceMultisig(string: string) } catch {
                throw ConversionError("not a valid multisig: text: \(error)")
            }
            do {
                if let wallet {
                    return .psbt(
                        try ChanceConversion.psbt(from: text, store: wallet.store, wallet: wallet.record).serialized())
                }
                return .psbt(try text.psbt().serialized())
            } catch { throw ConversionError("cannot make a PSBT of the multisig: text: \(error)") }
        case (.multisig, .psbt(let bytes)):
            do {
                let psbt = try PSBT(serialized: bytes)
                return .chanceMultisig(try ChanceConversion.text(from: psbt).description)
            } catch {
                throw ConversionError("cannot write the PSBT as a multisig: text: \(error)")
            }
        default:
            throw ConversionError(
                "--kind \(kind?.rawValue ?? "") takes a PSBT or a multisig: text, not a \(payload.kind.rawValue)")
        }
    }

    /// Checks a PSBT (it must parse) and converts it to `psbtVersion`; other kinds pass unchanged.
    static func normalized(_ payload: Payload, psbtVersion: Int?) throws(ConversionError) -> Payload {
        guard case .psbt(let bytes) = payload else {
            if psbtVersion != nil {
                throw ConversionError("--psbt-version applies to a PSBT; the input holds a \(payload.kind.rawValue)")
            }
            return payload
        }
        let psbt: PSBT
        do { psbt = try PSBT(serialized: bytes) } catch { throw ConversionError("not a valid PSBT: \(error)") }
        guard let psbtVersion, psbtVersion != Int(psbt.version) else { return payload }
        do {
            let converted = psbtVersion == 2 ? try psbt.convertedToVersion2() : try psbt.convertedToVersion0()
            return .psbt(converted.serialized())
        } catch {
            throw ConversionError("cannot convert the PSBT to version \(psbtVersion): \(error)")
        }
    }

    /// The payload's bytes: a PSBT's or transaction's, or the UTF-8 of text.
    public static func bytes(_ payload: Payload) -> [UInt8] {
        switch payload {
        case .psbt(let b), .transaction(let b), .bytes(let b): b
        case .descriptor(let t), .json(let t), .text(let t), .address(let t), .chanceMultisig(let t): Array(t.utf8)
        default: []
        }
    }

    /// The texts of `payload` in `format` (nil for binary): UR parts (lower case in files, upper case in QR codes),
    /// BBQr parts, or one base64 or hex line; in QR codes base64 and hex must fit one code.
    static func texts(
        _ payload: Payload, format: ConvertFormat, encoder: FrameEncoder, forQR: Bool = false
    ) throws(ConversionError) -> [String]? {
        func fail(_ detail: String) -> ConversionError {
            ConversionError("cannot write a \(payload.kind.rawValue) as \(format.rawValue)\(detail)")
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

/// What `convert` made.
public struct ConversionReport: Sendable {
    public let payload: Payload
    public let inputFormat: FrameFormat
    /// How many QR codes the input was read from (0: not from images).
    public let codes: Int
    public let format: ConvertFormat
    /// The encoded texts (nil: binary).
    public let texts: [String]?
    /// The texts of the QR codes, when codes are written.
    public let qrTexts: [String]?

    /// What a file gets: the texts one a line, or the bytes.
    public var fileBytes: [UInt8] {
        texts.map { Array(($0.joined(separator: "\n") + "\n").utf8) } ?? PayloadConversion.bytes(payload)
    }

    /// The PSBT's version, for `--json`.
    public var psbtVersion: Int? {
        guard case .psbt(let bytes) = payload, let psbt = try? PSBT(serialized: bytes) else { return nil }
        return Int(psbt.version)
    }

    /// The stderr line.
    public var line: String {
        "\(payload.kind.rawValue) read as \(inputFormat.rawValue)" + (codes > 0 ? " from \(codes) QR codes" : "")
            + ", written as \(format.rawValue)" + partsNote
    }

    /// " (2 parts)", or " (2 parts; 4 QR codes)" when a looping display carries more codes than the text has parts.
    var partsNote: String {
        func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }
        var notes: [String] = []
        if let texts { notes.append(count(texts.count, "part")) }
        if let qrTexts, qrTexts.count != texts?.count { notes.append(count(qrTexts.count, "QR code")) }
        return notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
    }

    /// `convert --json`.
    public func json(written: [String]) -> ConvertJSON {
        ConvertJSON(
            kind: payload.kind.rawValue, inputFormat: inputFormat.rawValue, format: format.rawValue,
            psbtVersion: psbtVersion, bytes: PayloadConversion.bytes(payload).count, parts: texts?.count ?? 1,
            texts: texts, written: written)
    }
}

/// `convert --json`.
public struct ConvertJSON: Encodable, Sendable {
    let kind: String
    let inputFormat: String
    let format: String
    @JSONNullable var psbtVersion: Int?
    let bytes: Int
    let parts: Int
    @JSONNullable var texts: [String]?
    let written: [String]
}
