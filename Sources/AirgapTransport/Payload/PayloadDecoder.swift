/// The one entry point for incoming QR texts and bytes: give it every code read (from any number of PNGs, in any
/// order, with duplicates) and it detects the framing, joins multi-part series and returns the typed payload.
///
/// Detection order for one text: `ur:` → BBQr `B$` → Specter `pNofM ` → `bitcoin:` → hex → base64 PSBT →
/// address → descriptor → JSON → base43 PSBT/transaction → plain text.
public struct PayloadDecoder: Sendable {
    private enum State: Sendable {
        case empty
        case ur(URDecoder)
        case bbqr(BBQrJoiner)
        case specter(SpecterMultipart)
        case single(Payload, format: FrameFormat, source: String)
    }

    private var state = State.empty
    /// The payload types the caller accepts; nil accepts all.
    public let expected: Set<PayloadKind>?

    /// Creates a decoder that accepts only `expected` kinds (nil: any).
    public init(expecting expected: Set<PayloadKind>? = nil) {
        self.expected = expected
    }

    /// Decodes a whole set of codes at once.
    ///
    /// - Throws: `PayloadError.incomplete` with progress when parts are missing, or any error `receive` throws.
    public static func decode(
        _ texts: [String], expecting expected: Set<PayloadKind>? = nil
    ) throws(PayloadError) -> (payload: Payload, format: FrameFormat) {
        var decoder = PayloadDecoder(expecting: expected)
        for text in texts { try decoder.receive(text) }
        return try decoder.result()
    }

    /// The payload and its framing, once complete.
    ///
    /// - Throws: `PayloadError.empty` before any code, `.incomplete` while parts are missing, `.unexpectedKind`.
    public func result() throws(PayloadError) -> (payload: Payload, format: FrameFormat) {
        switch state {
        case .empty: throw .empty
        case .single(let payload, let format, _): return (payload, format)
        case .ur(let decoder):
            guard let ur = decoder.result else { throw .incomplete(progress ?? Self.noProgress(.ur)) }
            return (try checked(Self.payload(from: ur)), .ur)
        case .bbqr(let joiner):
            guard let bytes = joiner.result, let type = joiner.fileType else {
                throw .incomplete(progress ?? Self.noProgress(.bbqr))
            }
            return (try checked(Self.payload(bbqr: bytes, fileType: type)), .bbqr)
        case .specter(let joiner):
            guard let text = joiner.result else { throw .incomplete(progress ?? Self.noProgress(.specter)) }
            let (payload, _) = try Self.detectSingle(text)
            return (try checked(payload), .specter)
        }
    }

    /// Whether a complete payload is available.
    public var isComplete: Bool { (try? result()) != nil }

    /// Progress of a multi-part series; nil before any code or for a single code.
    public var progress: PayloadProgress? {
        switch state {
        case .empty, .single: return nil
        case .ur(let d):
            return PayloadProgress(
                format: .ur, receivedParts: d.receivedPartCount, totalParts: d.expectedPartCount,
                fraction: d.estimatedFractionComplete, missingParts: d.missingFragments, missingIsEstimate: true)
        case .bbqr(let j):
            let total = j.count ?? 0
            return PayloadProgress(
                format: .bbqr, receivedParts: j.receivedCount, totalParts: j.count,
                fraction: total == 0 ? 0 : Double(j.receivedCount) / Double(total),
                missingParts: j.missingIndexes.map { $0 + 1 }, missingIsEstimate: false)
        case .specter(let j):
            let total = j.count ?? 0
            return PayloadProgress(
                format: .specter, receivedParts: j.receivedCount, totalParts: j.count,
                fraction: total == 0 ? 0 : Double(j.receivedCount) / Double(total), missingParts: j.missingParts,
                missingIsEstimate: false)
        }
    }

    /// Adds the raw bytes of one QR code (byte mode) or file: UTF-8 text goes through `receive(_:)`,
    /// other bytes are a binary PSBT (by its magic) or plain bytes.
    ///
    /// - Throws: as `receive(_:)`.
    public mutating func receive(bytes: [UInt8]) throws(PayloadError) {
        if !bytes.starts(with: Self.psbtMagic), let text = String(validating: bytes, as: UTF8.self) {
            return try receive(text)
        }
        guard !bytes.isEmpty else { throw .empty }
        let payload: Payload = bytes.starts(with: Self.psbtMagic) ? .psbt(bytes) : .bytes(bytes)
        try receiveSingle(payload, format: .binary, source: TextCodec.base64String(bytes))
    }

    /// Adds the text of one QR code.
    ///
    /// - Throws: `PayloadError` for a malformed code, codes of two payloads (`.mixedPayloads`), or a payload or
    ///   UR type the caller does not expect (`.unexpectedKind`).
    public mutating func receive(_ raw: String) throws(PayloadError) {
        let text = raw.trimmingWhitespace()
        guard !text.isEmpty else { throw .empty }
        if text.count >= 3, text.prefix(3).lowercased() == "ur:" {
            var decoder: URDecoder
            let previous = state
            switch state {
            case .empty: decoder = URDecoder()
            case .ur(let d): decoder = d
            default: throw .mixedPayloads(first: describe(), second: "UR \(text.prefix(24))…")
            }
            state = .empty  // drop the stored copy so that the decoder's buffers are mutated in place
            do { try decoder.receive(text) } catch {
                state = previous
                throw mapUR(error, decoder: decoder, text: text)
            }
            state = .ur(decoder)
            if let type = decoder.type {
                do { try checkURType(type) } catch {
                    state = previous
                    throw error
                }
            }
        } else if text.hasPrefix("B$") {
            var joiner: BBQrJoiner
            let previous = state
            switch state {
            case .empty: joiner = BBQrJoiner()
            case .bbqr(let j): joiner = j
            default: throw .mixedPayloads(first: describe(), second: "BBQr \(text.prefix(8))")
            }
            state = .empty  // mutate the joiner's buffers in place
            do { try joiner.receive(text) } catch {
                state = previous
                if case .mixedPayloads(let a, let b) = error {
                    throw .mixedPayloads(first: "BBQr series \(a)", second: "BBQr series \(b)")
                }
                throw .bbqr(error)
            }
            state = .bbqr(joiner)
            if let type = joiner.fileType {
                do { try checkBBQrType(type) } catch {
                    state = previous
                    throw error
                }
            }
        } else if SpecterMultipart.isPart(text) {
            var joiner: SpecterMultipart
            switch state {
            case .empty: joiner = SpecterMultipart()
            case .specter(let j): joiner = j
            default: throw .mixedPayloads(first: describe(), second: "Specter part \(text.prefix(10))")
            }
            do { try joiner.receive(text) } catch {
                if case .mixedPayloads(let a, let b) = error {
                    throw .mixedPayloads(first: "Specter series of \(a)", second: "Specter series of \(b)")
                }
                throw .specter(error)
            }
            state = .specter(joiner)
        } else {
            let (payload, format) = try Self.detectSingle(text)
            try receiveSingle(payload, format: format, source: text)
        }
    }

    private mutating func receiveSingle(_ payload: Payload, format: FrameFormat, source: String) throws(PayloadError) {
        switch state {
        case .empty:
            _ = try checked(payload)
            state = .single(payload, format: format, source: source)
        case .single(let existing, _, _):
            // The same code scanned twice (or from two images) is fine; a different one is a second payload.
            guard existing == payload else {
                throw .mixedPayloads(first: describe(), second: "\(payload.kind.rawValue) \(source.prefix(24))")
            }
        default:
            throw .mixedPayloads(first: describe(), second: "\(payload.kind.rawValue) \(source.prefix(24))")
        }
    }

    // MARK: Detection of single codes

    static let psbtMagic: [UInt8] = [0x70, 0x73, 0x62, 0x74, 0xFF]

    /// Classifies one complete text (not a part of a multi-part series).
    ///
    /// - Throws: `PayloadError.bip21` for a malformed `bitcoin:` URI.
    static func detectSingle(_ raw: String) throws(PayloadError) -> (Payload, FrameFormat) {
        let text = raw.trimmingWhitespace()
        guard !text.isEmpty else { throw .empty }
        if text.count > 8, text.prefix(8).lowercased() == "bitcoin:" {
            do { return (.bip21(try BIP21URI(string: text)), .plain) } catch { throw .bip21(error) }
        }
        // The Chance wallet's multisig: text (docs/architecture.md section 3): JSON after a fixed prefix.
        if text.hasPrefix("multisig:") { return (.chanceMultisig(text), .plain) }
        if TextCodec.isHex(text), let bytes = try? TextCodec.bytes(hex: text) {
            if bytes.starts(with: psbtMagic) { return (.psbt(bytes), .hex) }
            if looksLikeTransaction(bytes) { return (.transaction(bytes), .hex) }
        }
        if text.hasPrefix("cHNidP"), let bytes = try? TextCodec.bytes(base64: text), bytes.starts(with: psbtMagic) {
            return (.psbt(bytes), .base64)
        }
        if AddressCandidate.isPlausibleAddress(text) { return (.address(text), .plain) }
        if looksLikeDescriptor(text) { return (.descriptor(text), .plain) }
        if text.hasPrefix("{") || text.hasPrefix("[{") { return (.json(text), .plain) }
        // Electrum shows base43 in one QR code; the length bound also bounds the quadratic base conversion.
        if (20...8192).contains(text.utf8.count), text.utf8.allSatisfy({ TextCodec.base43Alphabet.contains($0) }),
            let bytes = try? TextCodec.bytes(base43: text)
        {
            if bytes.starts(with: psbtMagic) { return (.psbt(bytes), .base43) }
            if looksLikeTransaction(bytes) { return (.transaction(bytes), .base43) }
        }
        return (.text(text), .plain)
    }

    /// A syntactic guess: version 1, 2 or 3 (little-endian) and at least the size of the smallest transaction.
    static func looksLikeTransaction(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 60 && (1...3).contains(bytes[0]) && bytes[1] == 0 && bytes[2] == 0 && bytes[3] == 0
    }

    /// Descriptor text: starts with a script function (BIP380-386) or an extended key with or without origin.
    static func looksLikeDescriptor(_ text: String) -> Bool {
        let functions = [
            "sh(", "wsh(", "pk(", "pkh(", "wpkh(", "combo(", "multi(", "sortedmulti(", "multi_a(",
            "sortedmulti_a(", "tr(", "rawtr(", "addr(", "raw(",
        ]
        let keys = ["xpub", "tpub", "ypub", "zpub", "upub", "vpub", "Ypub", "Zpub", "Upub", "Vpub"]
        let lower = text.lowercased()
        return functions.contains { lower.hasPrefix($0) } || keys.contains { text.hasPrefix($0) }
            || (text.hasPrefix("[") && text.dropFirst().prefix(8).count == 8
                && text.dropFirst().prefix(8).allSatisfy(\.isHexDigit) && ["/", "]"].contains(text.dropFirst(9).first))
    }

    // MARK: Multi-part results

    static func payload(from ur: UR) throws(PayloadError) -> Payload {
        let item: URRegistryItem
        do { item = try URRegistryItem(ur) } catch { throw .ur(error) }
        return switch item {
        case .bytes(let b): .bytes(b)
        case .psbt(let b): .psbt(b)
        case .cryptoOutput(let o): .cryptoOutput(o)
        case .cryptoAccount(let a): .cryptoAccount(a)
        case .outputDescriptor(let d): .outputDescriptor(d)
        case .accountDescriptor(let a): .accountDescriptor(a)
        case .hdKey(let k): .hdKey(k)
        case .ethSignRequest(let q): .ethSignRequest(q)
        case .ethSignature(let s): .ethSignature(s)
        }
    }

    static func payload(bbqr bytes: [UInt8], fileType: BBQr.FileType) throws(PayloadError) -> Payload {
        switch fileType {
        case .psbt: return .psbt(bytes)
        case .transaction: return .transaction(bytes)
        case .json, .unicodeText:
            guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
            if fileType == .json { return .json(text) }
            let (payload, _) = try detectSingle(text)
            return payload
        case .cbor, .binary, .executable: return .bytes(bytes)
        }
    }

    // MARK: Expectations and errors

    private static func noProgress(_ format: FrameFormat) -> PayloadProgress {
        PayloadProgress(
            format: format, receivedParts: 0, totalParts: nil, fraction: 0, missingParts: [], missingIsEstimate: false)
    }

    private func checked(_ payload: Payload) throws(PayloadError) -> Payload {
        if let expected, !expected.contains(payload.kind) {
            throw .unexpectedKind(expected: expected.sorted { $0.rawValue < $1.rawValue }, actual: payload.kind)
        }
        return payload
    }

    /// Rejects a UR type the caller does not expect as soon as its first part arrives.
    private func checkURType(_ type: String) throws(PayloadError) {
        let kind: PayloadKind? =
            switch type {
            case "psbt", "crypto-psbt": .psbt
            case "crypto-account": .cryptoAccount
            case "crypto-output": .cryptoOutput
            case "output-descriptor": .outputDescriptor
            case "account-descriptor": .accountDescriptor
            case "crypto-hdkey": .hdKey
            case "eth-sign-request": .ethSignRequest
            case "eth-signature": .ethSignature
            case "bytes": .bytes
            default: nil
            }
        guard let kind else { throw .ur(.unsupportedType(type)) }
        if let expected, !expected.contains(kind) {
            throw .unexpectedKind(expected: expected.sorted { $0.rawValue < $1.rawValue }, actual: kind)
        }
    }

    /// Rejects BBQr file types P and T when the caller expects neither; text types are checked on completion.
    private func checkBBQrType(_ type: BBQr.FileType) throws(PayloadError) {
        let kind: PayloadKind? = type == .psbt ? .psbt : type == .transaction ? .transaction : nil
        if let kind, let expected, !expected.contains(kind) {
            throw .unexpectedKind(expected: expected.sorted { $0.rawValue < $1.rawValue }, actual: kind)
        }
    }

    private func mapUR(_ error: URError, decoder: URDecoder, text: String) -> PayloadError {
        switch error {
        case .partFromDifferentMessage(let expected, let actual, _):
            return .mixedPayloads(
                first: "UR \(decoder.type ?? "") message \(String(expected, radix: 16))",
                second: "UR message \(String(actual, radix: 16)) (\(text.prefix(24))…)")
        case .mixedTypes(let expected, let actual):
            return .mixedPayloads(first: "ur:\(expected)", second: "ur:\(actual)")
        default:
            return .ur(error)
        }
    }

    private func describe() -> String {
        switch state {
        case .empty: "nothing"
        case .ur(let d): "ur:\(d.type ?? "?") series"
        case .bbqr(let j): "BBQr series of \(j.count ?? 0) parts"
        case .specter(let j): "Specter series of \(j.count ?? 0) parts"
        case .single(let payload, _, let source): "\(payload.kind.rawValue) \(source.prefix(24))"
        }
    }
}
