import Bitcoin

/// The 8-character descriptor checksum (a BCH code over the descriptor's characters).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki#checksum
public enum DescriptorChecksum {
    /// The characters a descriptor may contain, in the order that gives each its 5-bit value and group.
    static let inputCharset = Array(
        "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ ".utf8)
    /// The checksum alphabet (bech32's).
    static let checksumCharset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)

    private static let positions: [Int16] = {
        var table = [Int16](repeating: -1, count: 128)
        for (index, c) in inputCharset.enumerated() { table[Int(c)] = Int16(index) }
        return table
    }()

    private static func polymod(_ c: UInt64, _ value: UInt64) -> UInt64 {
        let c0 = c >> 35
        var c = (c & 0x7_FFFF_FFFF) << 5 ^ value
        if c0 & 1 != 0 { c ^= 0xF5_DEE5_1989 }
        if c0 & 2 != 0 { c ^= 0xA9_FDCA_3312 }
        if c0 & 4 != 0 { c ^= 0x1B_AB10_E32D }
        if c0 & 8 != 0 { c ^= 0x37_06B1_677A }
        if c0 & 16 != 0 { c ^= 0x64_4D62_6FFD }
        return c
    }

    /// The checksum of `descriptor` (without any `#…` suffix).
    ///
    /// - Throws: `DescriptorError.invalidCharacter` for a character outside the descriptor character set.
    public static func compute(_ descriptor: String) throws(DescriptorError) -> String {
        var c: UInt64 = 1
        var cls: UInt64 = 0
        var clsCount = 0
        for (offset, char) in descriptor.unicodeScalars.enumerated() {
            guard char.value < 128, positions[Int(char.value)] >= 0 else {
                throw .invalidCharacter(Character(char), position: offset)
            }
            let pos = UInt64(positions[Int(char.value)])
            c = polymod(c, pos & 31)
            cls = cls * 3 + (pos >> 5)
            clsCount += 1
            if clsCount == 3 {
                c = polymod(c, cls)
                cls = 0
                clsCount = 0
            }
        }
        if clsCount > 0 { c = polymod(c, cls) }
        for _ in 0..<8 { c = polymod(c, 0) }
        c ^= 1
        var out: [UInt8] = []
        for j in 0..<8 { out.append(checksumCharset[Int(c >> (5 * (7 - UInt64(j))) & 31)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// `descriptor#checksum`.
    ///
    /// - Throws: `DescriptorError.invalidCharacter`.
    public static func adding(to descriptor: String) throws(DescriptorError) -> String {
        descriptor + "#" + (try compute(descriptor))
    }

    /// Splits `text` at `#`, verifies the checksum when there is one, and returns the descriptor part.
    ///
    /// - Throws: `DescriptorError.invalidCharacter`, `.invalidChecksumLength`, `.checksumMismatch`, or
    ///   `.missingChecksum` when `required` and there is none.
    public static func verify(_ text: String, required: Bool = false) throws(DescriptorError) -> String {
        guard let hash = text.firstIndex(of: "#") else {
            if required { throw .missingChecksum }
            _ = try compute(text)
            return text
        }
        let body = String(text[..<hash])
        let given = String(text[text.index(after: hash)...])
        let expected = try compute(body)
        guard given.count == 8 else { throw .invalidChecksumLength(given.count) }
        guard given == expected else { throw .checksumMismatch(expected: expected, found: given) }
        return body
    }
}
