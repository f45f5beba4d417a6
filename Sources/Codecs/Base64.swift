/// RFC 4648 base64 (the standard alphabet), the one implementation: PSBTs, message signatures, the QR text forms.
///
/// - SeeAlso: https://datatracker.ietf.org/doc/html/rfc4648#section-4
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Padded base64 of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int((n >> 18) & 63)])
            out.append(alphabet[Int((n >> 12) & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int((n >> 6) & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of base64 text: no whitespace, padding bits zero; `=` padding optional unless `requirePadding`.
    ///
    /// - Throws: `Base64Error`.
    public static func decode(_ text: String, requirePadding: Bool = false) throws(Base64Error) -> [UInt8] {
        var chars = Array(text.utf8)
        var padding = 0
        while chars.last == UInt8(ascii: "="), padding < 2 {
            chars.removeLast()
            padding += 1
        }
        if padding > 0 || requirePadding, (chars.count + padding) % 4 != 0 {
            throw .invalidLength(chars.count + padding)
        }
        guard chars.count % 4 != 1 else { throw .invalidLength(chars.count) }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for (offset, c) in chars.enumerated() {
            guard let digit = value(c) else { throw .invalidCharacter(offset: offset) }
            buffer = ((buffer << 6) | UInt32(digit)) & 0xFFFF
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { throw .nonCanonicalPadding }
        return out
    }

    @inline(__always) private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}

/// Why base64 text was refused.
public enum Base64Error: Error, Equatable, Sendable {
    /// A length no base64 text has (the number of characters).
    case invalidLength(Int)
    /// A character outside the alphabet (its offset).
    case invalidCharacter(offset: Int)
    /// Padding bits that are not zero (two texts would decode to the same bytes).
    case nonCanonicalPadding
}
