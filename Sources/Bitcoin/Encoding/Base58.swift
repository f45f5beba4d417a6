import BitcoinCrypto

/// Base58 and base58check, Bitcoin's alphabet (no 0, O, I, l).
///
/// - SeeAlso: https://en.bitcoin.it/wiki/Base58Check_encoding
public enum Base58 {
    private static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz".utf8)
    private static let indexes: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()

    /// Base58 text of `bytes` (leading zero bytes become leading '1's).
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let zeros = input.prefix { $0 == 0 }.count
        // log(256)/log(58) ≈ 1.366
        var digits = [UInt8](repeating: 0, count: (input.count - zeros) * 138 / 100 + 1)
        var length = 0
        for byte in input[zeros...] {
            var carry = Int(byte)
            var i = 0
            var k = digits.count - 1
            while (carry != 0 || i < length) && k >= 0 {
                carry += 256 * Int(digits[k])
                digits[k] = UInt8(carry % 58)
                carry /= 58
                i += 1
                k -= 1
            }
            length = i
        }
        let significant = digits.drop { $0 == 0 }
        var out = [UInt8](repeating: alphabet[0], count: zeros)
        out.append(contentsOf: significant.map { alphabet[Int($0)] })
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base58 text.
    ///
    /// - Throws: `EncodingError.invalidCharacter` naming the first character outside the alphabet.
    public static func decode(_ text: String) throws(EncodingError) -> [UInt8] {
        let chars = Array(text.utf8)
        let ones = chars.prefix { $0 == alphabet[0] }.count
        var bytes = [UInt8](repeating: 0, count: (chars.count - ones) * 733 / 1000 + 1)  // log(58)/log(256)
        var length = 0
        for (position, c) in chars.enumerated().dropFirst(ones) {
            guard c < 128, indexes[Int(c)] >= 0 else {
                throw .invalidCharacter(Character(UnicodeScalar(c)), position: position)
            }
            var carry = Int(indexes[Int(c)])
            var i = 0
            var k = bytes.count - 1
            while (carry != 0 || i < length) && k >= 0 {
                carry += 58 * Int(bytes[k])
                bytes[k] = UInt8(carry % 256)
                carry /= 256
                i += 1
                k -= 1
            }
            length = i
        }
        return [UInt8](repeating: 0, count: ones) + bytes.drop { $0 == 0 }
    }

    /// Base58check text: base58 of `payload` ‖ first 4 bytes of SHA-256d(payload).
    public static func encodeCheck(_ payload: some Collection<UInt8>) -> String {
        let bytes = Array(payload)
        return encode(bytes + SHA256.doubleHash(bytes).prefix(4))
    }

    /// Decodes base58check text and verifies its checksum; returns the payload without the checksum.
    ///
    /// - Throws: `EncodingError.invalidCharacter`, `.invalidLength` (under 4 bytes) or `.checksumMismatch`.
    public static func decodeCheck(_ text: String) throws(EncodingError) -> [UInt8] {
        let bytes = try decode(text)
        guard bytes.count >= 4 else { throw .invalidLength(expected: "at least 4 bytes", actual: bytes.count) }
        let payload = Array(bytes.dropLast(4))
        guard SHA256.doubleHash(payload).prefix(4).elementsEqual(bytes.suffix(4)) else { throw .checksumMismatch }
        return payload
    }
}
