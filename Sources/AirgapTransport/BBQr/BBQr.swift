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

/// One parsed BBQr part.
package struct BBQrPart: Equatable, Sendable {
    package let encoding: BBQr.Encoding
    package let fileType: BBQr.FileType
    package let count: Int
    package let index: Int
    package let body: String

    /// Parses one QR text as a BBQr part (header case-insensitive, body upper-cased).
    ///
    /// - Throws: `BBQrError` on a bad header.
    package init(_ text: String) throws(BBQrError) {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.hasPrefix("B$"), trimmed.count >= BBQr.headerLength else { throw .notBBQr }
        let header = Array(trimmed.prefix(BBQr.headerLength))
        guard let encoding = BBQr.Encoding(rawValue: BBQr.asciiUppercase(header[2])) else {
            throw .unknownEncoding(header[2])
        }
        guard let fileType = BBQr.FileType(rawValue: BBQr.asciiUppercase(header[3])) else {
            throw .unknownFileType(header[3])
        }
        let headerText = String(header)
        guard let count = BBQr.parseBase36(Substring(String(header[4...5]))),
            let index = BBQr.parseBase36(Substring(String(header[6...7]))), count >= 1, index < count
        else { throw .invalidHeader(headerText) }
        self.encoding = encoding
        self.fileType = fileType
        self.count = count
        self.index = index
        body = String(trimmed.dropFirst(BBQr.headerLength)).uppercased()
    }

    /// The first six header characters, which every part of one payload shares.
    package var seriesHeader: String { "B$\(encoding.rawValue)\(fileType.rawValue)" + BBQr.base36(count) }
}

extension String {
    /// The string without leading and trailing spaces, tabs, CR and LF (QR decoders sometimes add a newline).
    func trimmingWhitespace() -> String {
        let bytes = utf8
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        if first == bytes.startIndex, bytes.index(after: last) == bytes.endIndex { return self }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
