import Codecs

/// Hex, base32 (RFC 4648, no padding), base64 (RFC 4648) and Electrum's base43, for the QR text forms.
///
/// - SeeAlso: https://datatracker.ietf.org/doc/html/rfc4648
package enum TextCodec {
    private static let base32Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
    /// Electrum's base43 alphabet (electrum/bitcoin.py `__b43chars`).
    package static let base43Alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ$*+-./:".utf8)

    // MARK: Hex (Codecs' one implementation)

    /// Returns lower-case hex (or upper-case when `uppercase`) of `bytes`.
    package static func hexString(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        Hex.encode(bytes, uppercase: uppercase)
    }

    /// Decodes hex text of either case.
    ///
    /// - Throws: `TextEncodingError` on an odd length or a non-hex character.
    package static func bytes(hex text: String) throws(TextEncodingError) -> [UInt8] {
        do { return try Hex.decode(text, reversed: false) } catch {
            switch error {
            case .oddLength(let length): throw .invalidLength(encoding: "hex", length: length)
            case .invalidCharacter(_, let offset): throw .invalidCharacter(encoding: "hex", offset: offset)
            }
        }
    }

    /// Returns whether `text` is non-empty, of even length and made only of hex digits.
    package static func isHex(_ text: String) -> Bool { Hex.isHex(text) }

    // MARK: Base32

    /// Returns RFC 4648 base32 of `bytes` without `=` padding, as BBQr sends it.
    package static func base32String(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer: UInt32 = 0
        var bits = 0
        for b in bytes {
            buffer = (buffer << 8) | UInt32(b)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(base32Alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
        }
        if bits > 0 { out.append(base32Alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes unpadded upper-case RFC 4648 base32.
    ///
    /// - Throws: `TextEncodingError` on a character outside `A-Z2-7`, an impossible length or non-zero padding bits.
    package static func bytes(base32 text: String) throws(TextEncodingError) -> [UInt8] {
        let chars = Array(text.utf8)
        guard [0, 2, 4, 5, 7].contains(chars.count % 8) else {
            throw .invalidLength(encoding: "base32", length: chars.count)
        }
        return try unpack(chars, bitsPerCharacter: 5, encoding: "base32") { c in
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): c - UInt8(ascii: "2") + 26
            default: nil
            }
        }
    }

    /// Packs characters of `bitsPerCharacter` bits each (their values from `value`) into bytes, most significant
    /// bit first, and checks that the leftover padding bits are zero.
    ///
    /// - Throws: `TextEncodingError.invalidCharacter` or `.nonCanonicalPadding`.
    private static func unpack(
        _ chars: [UInt8], bitsPerCharacter: Int, encoding: String, value: (UInt8) -> UInt8?
    ) throws(TextEncodingError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(chars.count * bitsPerCharacter / 8)
        var buffer: UInt32 = 0
        var bits = 0
        for (offset, c) in chars.enumerated() {
            guard let digit = value(c) else { throw .invalidCharacter(encoding: encoding, offset: offset) }
            buffer = ((buffer << UInt32(bitsPerCharacter)) | UInt32(digit)) & 0xFFFF
            bits += bitsPerCharacter
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        guard buffer & ((1 << UInt32(bits)) - 1) == 0 else { throw .nonCanonicalPadding(encoding: encoding) }
        return out
    }

    // MARK: Base64 (Codecs' one implementation)

    /// Returns padded RFC 4648 base64 of `bytes`.
    package static func base64String(_ bytes: [UInt8]) -> String { Base64.encode(bytes) }

    /// Decodes RFC 4648 base64; padding is optional, whitespace is not allowed.
    ///
    /// - Throws: `TextEncodingError` on a character outside the alphabet, a bad length or non-zero padding bits.
    package static func bytes(base64 text: String) throws(TextEncodingError) -> [UInt8] {
        do { return try Base64.decode(text) } catch {
            switch error {
            case .invalidLength(let length): throw .invalidLength(encoding: "base64", length: length)
            case .invalidCharacter(let offset): throw .invalidCharacter(encoding: "base64", offset: offset)
            case .nonCanonicalPadding: throw .nonCanonicalPadding(encoding: "base64")
            }
        }
    }

    // MARK: Base43 (Electrum)

    /// Returns Electrum's base43 text of `bytes` (big-number conversion; each leading zero byte becomes `0`).
    ///
    /// - SeeAlso: https://github.com/spesmilo/electrum/blob/master/electrum/bitcoin.py (`base_encode`)
    package static func base43String(_ bytes: [UInt8]) -> String {
        let zeros = bytes.prefix { $0 == 0 }.count
        var digits: [UInt8] = []  // little-endian base-43 digits
        for byte in bytes[zeros...] {
            var carry = UInt32(byte)
            for i in digits.indices {
                carry += UInt32(digits[i]) << 8
                digits[i] = UInt8(carry % 43)
                carry /= 43
            }
            while carry > 0 {
                digits.append(UInt8(carry % 43))
                carry /= 43
            }
        }
        let text =
            [UInt8](repeating: base43Alphabet[0], count: zeros) + digits.reversed().map { base43Alphabet[Int($0)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// Decodes Electrum's base43 text (upper case, as Electrum shows it).
    ///
    /// - Throws: `TextEncodingError.invalidCharacter` on a character outside the base43 alphabet.
    /// - SeeAlso: https://github.com/spesmilo/electrum/blob/master/electrum/bitcoin.py (`base_decode`)
    package static func bytes(base43 text: String) throws(TextEncodingError) -> [UInt8] {
        let chars = Array(text.utf8)
        let zeros = chars.prefix { $0 == base43Alphabet[0] }.count
        var bytes: [UInt8] = []  // little-endian base-256 digits
        for (offset, c) in chars.enumerated().dropFirst(zeros) {
            guard let value = base43Alphabet.firstIndex(of: c) else {
                throw .invalidCharacter(encoding: "base43", offset: offset)
            }
            var carry = UInt32(value)
            for i in bytes.indices {
                carry += UInt32(bytes[i]) * 43
                bytes[i] = UInt8(carry & 0xFF)
                carry >>= 8
            }
            while carry > 0 {
                bytes.append(UInt8(carry & 0xFF))
                carry >>= 8
            }
        }
        return [UInt8](repeating: 0, count: zeros) + bytes.reversed()
    }
}
