/// Bech32 (BIP173) and Bech32m (BIP350) text: a human-readable part, the separator `1`, and 5-bit data with a
/// six-character checksum whose constant tells the two variants apart.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0350.mediawiki
public enum Bech32 {
    /// The checksum variant: BIP173's constant 1, or BIP350's 0x2bc830a3.
    public enum Variant: Sendable, Hashable {
        /// BIP173 bech32 (segwit v0 addresses).
        case bech32
        /// BIP350 bech32m (segwit v1+ addresses).
        case bech32m

        var constant: UInt32 { self == .bech32 ? 1 : 0x2BC8_30A3 }
    }

    /// The decoded parts of a bech32 or bech32m string.
    public struct Decoded: Sendable, Hashable {
        /// The human-readable part, in lower case.
        public let hrp: String
        /// The 5-bit data values before the checksum.
        public let data: [UInt8]
        /// The checksum variant that matched.
        public let variant: Variant
    }

    /// The longest string BIP173 allows.
    public static let maxLength = 90

    private static let charset = Array("qpzry9x8gf2tvdw0s3jn54khce6mua7l".utf8)
    private static let reverse: [Int8] = {
        var table = [Int8](repeating: -1, count: 128)
        for (i, c) in charset.enumerated() { table[Int(c)] = Int8(i) }  // lower case; decode folds case first
        return table
    }()

    private static func polymod(_ values: [UInt8]) -> UInt32 {
        let generator: [UInt32] = [0x3B6A_57B2, 0x2650_8E6D, 0x1EA1_19FA, 0x3D42_33DD, 0x2A14_62B3]
        var chk: UInt32 = 1
        for value in values {
            let top = chk >> 25
            chk = (chk & 0x1FF_FFFF) << 5 ^ UInt32(value)
            for i in 0..<5 where (top >> UInt32(i)) & 1 == 1 { chk ^= generator[i] }
        }
        return chk
    }

    private static func expandHRP(_ hrp: [UInt8]) -> [UInt8] {
        hrp.map { $0 >> 5 } + [0] + hrp.map { $0 & 31 }
    }

    /// Encodes `hrp` and 5-bit `data` with the checksum of `variant`, in lower case.
    ///
    /// - Throws: `EncodingError.invalidBech32Format` for an empty or non-printable HRP, a data value above 31, or a
    ///   result over 90 characters.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0173.mediawiki
    public static func encode(
        hrp: String, data: [UInt8], variant: Variant, maxLength: Int = Bech32.maxLength
    ) throws(EncodingError) -> String {
        let hrpBytes = Array(hrp.lowercased().utf8)
        guard !hrpBytes.isEmpty, hrpBytes.allSatisfy({ $0 >= 33 && $0 <= 126 }) else {
            throw .invalidBech32Format("human-readable part is empty or has characters outside 33-126")
        }
        guard data.allSatisfy({ $0 < 32 }) else { throw .invalidBech32Format("data value above 31") }
        guard hrpBytes.count + 7 + data.count <= maxLength else {
            throw .invalidBech32Format("longer than \(maxLength) characters")
        }
        return encode(validatedHRP: hrpBytes, data: data, variant: variant)
    }

    /// Encodes a lower-case, printable HRP and 5-bit data already known to fit in 90 characters.
    static func encode(validatedHRP hrpBytes: [UInt8], data: [UInt8], variant: Variant) -> String {
        let mod = polymod(expandHRP(hrpBytes) + data + [0, 0, 0, 0, 0, 0]) ^ variant.constant
        let checksum = (0..<6).map { UInt8((mod >> (5 * (5 - UInt32($0)))) & 31) }
        let out = hrpBytes + [UInt8(ascii: "1")] + (data + checksum).map { charset[Int($0)] }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes a bech32 or bech32m string and reports which checksum variant it carries.
    ///
    /// - Throws: `EncodingError.mixedCase`, `.invalidCharacter`, `.invalidBech32Format` (no separator, empty HRP,
    ///   checksum too short, over 90 characters) or `.checksumMismatch` when neither variant matches.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0350.mediawiki
    /// `maxLength` raises the limit for formats with longer strings (BIP352 silent-payment addresses: 1023).
    public static func decode(_ string: String, maxLength: Int = Bech32.maxLength) throws(EncodingError) -> Decoded {
        let bytes = Array(string.utf8)
        guard bytes.count <= maxLength else { throw .invalidBech32Format("longer than \(maxLength) characters") }
        for (position, c) in bytes.enumerated() where c < 33 || c > 126 {
            throw .invalidCharacter(Character(Unicode.Scalar(c)), position: position)
        }
        let hasLower = bytes.contains { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
        let hasUpper = bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        guard !(hasLower && hasUpper) else { throw .mixedCase }
        let lower = bytes.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
        guard let separator = lower.lastIndex(of: UInt8(ascii: "1")) else {
            throw .invalidBech32Format("no separator '1'")
        }
        guard separator > 0 else { throw .invalidBech32Format("empty human-readable part") }
        guard lower.count - separator - 1 >= 6 else { throw .invalidBech32Format("checksum shorter than 6 characters") }
        let hrp = Array(lower[..<separator])
        var values: [UInt8] = []
        values.reserveCapacity(lower.count - separator - 1)
        for position in (separator + 1)..<lower.count {
            let value = reverse[Int(lower[position])]
            guard value >= 0 else {
                throw .invalidCharacter(Character(Unicode.Scalar(bytes[position])), position: position)
            }
            values.append(UInt8(value))
        }
        let variant: Variant
        switch polymod(expandHRP(hrp) + values) {
        case Variant.bech32.constant: variant = .bech32
        case Variant.bech32m.constant: variant = .bech32m
        default: throw .checksumMismatch
        }
        return Decoded(hrp: String(decoding: hrp, as: UTF8.self), data: Array(values.dropLast(6)), variant: variant)
    }

    /// Regroups bits: 8-bit bytes to 5-bit values (`pad` true, as when encoding) or back (`pad` false, which rejects
    /// more than 4 bits of padding and non-zero padding).
    ///
    /// - Throws: `EncodingError.invalidPadding`, or `.invalidBech32Format` for a value wider than `fromBits` or a
    ///   group width outside 1...8.
    public static func convertBits(
        _ data: some Sequence<UInt8>, from fromBits: Int, to toBits: Int, pad: Bool
    ) throws(EncodingError) -> [UInt8] {
        var accumulator: UInt32 = 0
        var bits = 0
        let maxValue: UInt32 = (1 << toBits) - 1
        guard (1...8).contains(fromBits), (1...8).contains(toBits) else {
            throw .invalidBech32Format("bit groups must be 1 to 8 bits wide")
        }
        var out: [UInt8] = []
        for value in data {
            guard UInt32(value) >> fromBits == 0 else {
                throw .invalidBech32Format("value wider than \(fromBits) bits")
            }
            accumulator = (accumulator << fromBits | UInt32(value)) & 0xFFFF
            bits += fromBits
            while bits >= toBits {
                bits -= toBits
                out.append(UInt8((accumulator >> UInt32(bits)) & maxValue))
            }
        }
        if pad {
            if bits > 0 { out.append(UInt8((accumulator << UInt32(toBits - bits)) & maxValue)) }
        } else if bits >= fromBits || (accumulator << UInt32(toBits - bits)) & maxValue != 0 {
            throw .invalidPadding
        }
        return out
    }
}

extension Bech32 {
    /// Bytes regrouped as 5-bit values with zero padding (this direction cannot fail).
    static func convertBits(eightBit bytes: [UInt8]) -> [UInt8] {
        var accumulator: UInt32 = 0
        var bits = 0
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        for byte in bytes {
            accumulator = (accumulator << 8 | UInt32(byte)) & 0xFFF
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(UInt8((accumulator >> UInt32(bits)) & 31))
            }
        }
        if bits > 0 { out.append(UInt8((accumulator << UInt32(5 - bits)) & 31)) }
        return out
    }
}
