/// Hexadecimal text for byte arrays: `[UInt8](hex:)` and `.hexString` (docs/architecture.md rule R5).
extension Array where Element == UInt8 {
    /// Decodes hex text (upper or lower case, no prefix or spaces).
    ///
    /// - Throws: `EncodingError.oddLength` or `.invalidCharacter` naming the offending position.
    public init(hex: String) throws(EncodingError) {
        self = try Hex.decode(hex, reversed: false)
    }

    /// Lower-case hex text of the bytes.
    public var hexString: String { Hex.encode(self) }
}

extension ArraySlice where Element == UInt8 {
    /// Lower-case hex text of the bytes.
    public var hexString: String { Hex.encode(self) }
}

/// Hex encoding helpers.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The lower-case hex digit of a nibble (0–15).
    @inline(__always) static func digit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }

    /// Lower-case hex text of `bytes`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lower-case hex text of `bytes` reversed (a txid's displayed form), straight into the string's storage (the
    /// sync's and the store's hot path).
    public static func encodeReversed(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: 2 * bytes.count) { out in
            for (i, byte) in bytes.reversed().enumerated() {
                out[2 * i] = digit(byte >> 4)
                out[2 * i + 1] = digit(byte & 0x0F)
            }
            return 2 * bytes.count
        }
    }

    /// The bytes of hex text, in order or `reversed` (a txid's displayed form), decoded straight from the string's
    /// UTF-8 into one array: the store reads 10,000 txids for a `send` over 10,000 UTXOs (issue 19).
    ///
    /// - Throws: `EncodingError.oddLength` or `.invalidCharacter` naming the first offending position.
    static func decode(_ text: String, reversed: Bool) throws(EncodingError) -> [UInt8] {
        var text = text
        return try text.withUTF8 { chars in decode(UnsafeRawBufferPointer(chars), reversed: reversed) }.get()
    }

    /// The bytes of hex text given as its UTF-8 bytes, in order or `reversed`; see `decode(_:reversed:)`.
    static func decode(_ chars: UnsafeRawBufferPointer, reversed: Bool) -> Result<[UInt8], EncodingError> {
        guard chars.count % 2 == 0 else { return .failure(.oddLength(chars.count)) }
        let count = chars.count / 2
        var bad: Int?
        let bytes = nibbles.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                for i in 0..<count {
                    let high = table[Int(chars[2 * i])]
                    let low = table[Int(chars[2 * i + 1])]
                    guard high | low < 16 else {
                        bad = high < 16 ? 2 * i + 1 : 2 * i
                        break
                    }
                    out[reversed ? count - 1 - i : i] = high << 4 | low
                }
                // Bytes are trivial: on a bad character the array is thrown away, its unwritten slots never read.
                initialized = bad == nil ? count : 0
            }
        }
        if let bad { return .failure(.invalidCharacter(Character(UnicodeScalar(chars[bad])), position: bad)) }
        return .success(bytes)
    }

    /// Each byte's value as a hex digit, or 0xFF.
    private static let nibbles: [UInt8] = (0...255).map { nibble(UInt8($0)) ?? 0xFF }

    @inline(__always)
    static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}
