/// BBQr ("Better Bitcoin QR"): data split over alphanumeric QR codes, each with an 8-character header
/// `B$` + encoding + file type + count (2 base-36 digits) + index (2 base-36 digits).
///
/// - SeeAlso: https://github.com/coinkite/BBQr/blob/master/BBQr.md
public enum BBQr {
    /// How the body characters encode the bytes.
    public enum Encoding: Character, Sendable, CaseIterable {
        /// Upper-case hex.
        case hex = "H"
        /// RFC 4648 base32 without padding.
        case base32 = "2"
        /// Raw deflate (zlib, window bits 10, no header), then base32.
        case zlib = "Z"

        /// Body lengths of non-final parts must be a multiple of this (whole bytes).
        var splitModulus: Int { self == .hex ? 2 : 8 }
    }

    /// What the bytes are.
    public enum FileType: Character, Sendable, CaseIterable {
        case psbt = "P"
        case transaction = "T"
        case json = "J"
        case cbor = "C"
        case unicodeText = "U"
        case binary = "B"
        case executable = "X"
    }

    /// Header length in characters.
    static let headerLength = 8
    static let base36Digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    /// `c` with a-z mapped to A-Z; every other character unchanged (no multi-character case mappings).
    static func asciiUppercase(_ c: Character) -> Character {
        guard let ascii = c.asciiValue, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(ascii) else { return c }
        return Character(Unicode.Scalar(ascii - 32))
    }

    static func base36(_ n: Int) -> String { String([base36Digits[n / 36], base36Digits[n % 36]]) }

    static func parseBase36(_ s: Substring) -> Int? {
        guard s.count == 2 else { return nil }
        var value = 0
        for c in s {
            guard let digit = base36Digits.firstIndex(of: asciiUppercase(c)) else { return nil }
            value = value * 36 + digit
        }
        return value
    }
}
