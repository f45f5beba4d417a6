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
