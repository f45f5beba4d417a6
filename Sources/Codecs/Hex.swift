/// Hexadecimal text of bytes, the one implementation every module uses (Bitcoin's `[UInt8](hex:)` and `.hexString`,
/// Ethereum's `0x` quantities and data, the QR text forms, the server protocols).
public enum Hex {
    @usableFromInline static let lower = Array("0123456789abcdef".utf8)
    @usableFromInline static let upper = Array("0123456789ABCDEF".utf8)

    /// The lower-case hex digit of a nibble (0–15).
    @inlinable @inline(__always) static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x57 + nibble
    }

    /// Hex text of `bytes`, lower case (upper case when `uppercase`), no prefix.
    @inlinable public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? upper : lower
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
    @inlinable public static func encodeReversed(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: 2 * bytes.count) { out in
            for (i, byte) in bytes.reversed().enumerated() {
                out[2 * i] = digit(byte >> 4)
                out[2 * i + 1] = digit(byte & 0x0F)
            }
            return 2 * bytes.count
        }
    }

    /// The bytes of hex text (either case, no prefix, no spaces), in order or `reversed` (a txid's displayed form),
    /// decoded straight from the string's UTF-8 into one array.
    ///
    /// - Throws: `HexError.oddLength` or `.invalidCharacter` naming the first offending position.
    @inlinable public static func decode(_ text: String, reversed: Bool) throws(HexError) -> [UInt8] {
        var text = text
        return try text.withUTF8 { chars in decode(utf8: UnsafeRawBufferPointer(chars), reversed: reversed) }.get()
    }

    /// The bytes of an even-length hex text, either case, with or without a `0x` prefix; nil when it is not one.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { chars in
            var raw = UnsafeRawBufferPointer(chars)
            if raw.count >= 2, raw[0] == UInt8(ascii: "0"), raw[1] == UInt8(ascii: "x") || raw[1] == UInt8(ascii: "X") {
                raw = UnsafeRawBufferPointer(rebasing: raw[2...])
            }
            return try? decode(utf8: raw, reversed: false).get()
        }
    }

    /// The bytes of hex text given as its UTF-8 bytes, in order or `reversed`; see `decode(_:reversed:)`.
    @inlinable public static func decode(utf8 chars: UnsafeRawBufferPointer, reversed: Bool) -> Result<
        [UInt8], HexError
    > {
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
        if let bad { return .failure(.invalidCharacter(chars[bad], position: bad)) }
        return .success(bytes)
    }

    /// Whether `text` is non-empty, of even length and made only of hex digits (no prefix).
    public static func isHex(_ text: String) -> Bool {
        let chars = text.utf8
        return !chars.isEmpty && chars.count % 2 == 0 && chars.allSatisfy { nibble($0) != nil }
    }

    /// Each byte's value as a hex digit, or 0xFF.
    @usableFromInline static let nibbles: [UInt8] = (0...255).map { nibble(UInt8($0)) ?? 0xFF }

    /// The value of a hex digit (either case), or nil.
    @inlinable @inline(__always)
    public static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}

/// Why hex text was refused.
public enum HexError: Error, Equatable, Sendable {
    /// An odd number of digits (the count).
    case oddLength(Int)
    /// A byte that is not a hex digit, and its offset.
    case invalidCharacter(UInt8, position: Int)
}
