/// Collects BBQr parts in any order (duplicates ignored) and decodes the payload once every part is present.
///
/// - SeeAlso: https://github.com/coinkite/BBQr/blob/master/BBQr.md
public struct BBQrJoiner: Sendable {
    private var series: String?
    private var parts: [Int: BBQrPart] = [:]
    /// The decoded bytes, once complete.
    public private(set) var result: [UInt8]?

    public init() {}

    /// The encoding, file type and count from the first part.
    public private(set) var encoding: BBQr.Encoding?
    /// The file type from the first part.
    public private(set) var fileType: BBQr.FileType?
    /// The part count from the first part.
    public private(set) var count: Int?

    /// Number of distinct parts received.
    public var receivedCount: Int { parts.count }
    /// Whether every part arrived and decoded.
    public var isComplete: Bool { result != nil }
    /// Indexes (0-based, as in the header) not yet received.
    public var missingIndexes: [Int] { count.map { n in (0..<n).filter { parts[$0] == nil } } ?? [] }

    /// Adds one part; returns false for a duplicate.
    ///
    /// - Throws: `BBQrError` for a bad header, a part of another series, a conflicting duplicate, or (when the last
    ///   part arrives) inconsistent lengths, bad hex/base32 or a bad deflate stream.
    @discardableResult
    public mutating func receive(_ text: String) throws(BBQrError) -> Bool {
        let part = try BBQrPart(text)
        if let series, series != part.seriesHeader { throw .mixedPayloads(expected: series, actual: part.seriesHeader) }
        if let existing = parts[part.index] {
            guard existing.body == part.body else { throw .conflictingPart(index: part.index) }
            return false
        }
        series = part.seriesHeader
        encoding = part.encoding
        fileType = part.fileType
        count = part.count
        parts[part.index] = part
        if parts.count == part.count { result = try Self.decode((0..<part.count).compactMap { parts[$0] }) }
        return true
    }

    /// Decodes a complete, ordered list of parts.
    static func decode(_ ordered: [BBQrPart]) throws(BBQrError) -> [UInt8] {
        guard let first = ordered.first else { throw .empty }
        let modulus = first.encoding.splitModulus
        let fullLength = first.body.utf8.count
        var bytes: [UInt8] = []
        for part in ordered {
            let length = part.body.utf8.count
            let isLast = part.index == ordered.count - 1
            if ordered.count > 1 {
                guard isLast ? length <= fullLength : (length == fullLength && length % modulus == 0) else {
                    throw .inconsistentPartLengths(index: part.index)
                }
            }
            guard length > 0 else { throw .inconsistentPartLengths(index: part.index) }
            do {
                bytes +=
                    try first.encoding == .hex ? TextCodec.bytes(hex: part.body) : TextCodec.bytes(base32: part.body)
            } catch { throw .invalidBody(index: part.index, error) }
        }
        return first.encoding == .zlib ? try Deflate.inflate(bytes) : bytes
    }
}
