/// Hexadecimal text for byte arrays: `[UInt8](hex:)` and `.hexString` (docs/architecture.md rule R5).
extension Array where Element == UInt8 {
    /// Decodes hex text (upper or lower case, no prefix or spaces).
    ///
    /// - Throws: `EncodingError.oddLength` or `.invalidCharacter` naming the offending position.
    public init(hex: String) throws(EncodingError) {
        let chars = Array(hex.utf8)
        guard chars.count % 2 == 0 else { throw .oddLength(chars.count) }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = Hex.nibble(chars[index]) else {
                throw .invalidCharacter(Character(UnicodeScalar(chars[index])), position: index)
            }
            guard let low = Hex.nibble(chars[index + 1]) else {
                throw .invalidCharacter(Character(UnicodeScalar(chars[index + 1])), position: index + 1)
            }
            out.append(high << 4 | low)
            index += 2
        }
        self = out
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
