/// Specter's multi-part QR text: each code is `p<M>of<N> <chunk>`, the payload is the chunks joined in order.
///
/// - SeeAlso: https://github.com/cryptoadvance/specter-diy/blob/master/docs/communication.md
public struct SpecterMultipart: Sendable {
    /// Parts accepted per series (bounds memory for hostile input).
    public static let maxParts = 1000

    private var parts: [Int: String] = [:]
    /// The declared number of parts, from the first part.
    public private(set) var count: Int?
    /// The joined payload text, once complete.
    public private(set) var result: String?

    public init() {}

    /// Parses `p<M>of<N> chunk`; returns nil when the text does not have that prefix.
    ///
    /// - Throws: `SpecterMultipartError.invalidHeader` when the prefix is there but M or N is out of range.
    static func parse(_ text: String) throws(SpecterMultipartError) -> (index: Int, count: Int, chunk: String)? {
        guard text.first == "p" || text.first == "P", let space = text.firstIndex(of: " ") else { return nil }
        let header = text[text.index(after: text.startIndex)..<space].lowercased()
        let numbers = header.split(separator: "of", omittingEmptySubsequences: false)
        guard numbers.count == 2,
            numbers.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) })
        else { return nil }
        guard numbers[0].count <= 4, numbers[1].count <= 4, let m = Int(numbers[0]), let n = Int(numbers[1]),
            m >= 1, m <= n, n <= maxParts
        else { throw .invalidHeader(String(text[..<space])) }
        return (m, n, String(text[text.index(after: space)...]))
    }

    /// Returns whether `text` starts like a Specter part (`p1of3 `).
    static func isPart(_ text: String) -> Bool { (try? parse(text)) != nil }

    /// Adds one part; returns false for a duplicate.
    ///
    /// - Throws: `SpecterMultipartError` for a malformed part, a different count, or two bodies for one index.
    @discardableResult
    public mutating func receive(_ text: String) throws(SpecterMultipartError) -> Bool {
        guard let (index, n, chunk) = try Self.parse(text) else { throw .notSpecterPart }
        if let count, count != n { throw .mixedPayloads(expectedCount: count, actualCount: n) }
        if let existing = parts[index] {
            guard existing == chunk else { throw .conflictingPart(index: index) }
            return false
        }
        count = n
        parts[index] = chunk
        if parts.count == n { result = (1...n).compactMap { parts[$0] }.joined() }
        return true
    }

    /// Number of distinct parts received.
    public var receivedCount: Int { parts.count }
    /// Part numbers (1-based, as in `p<M>of<N>`) not yet received.
    public var missingParts: [Int] { count.map { n in (1...n).filter { parts[$0] == nil } } ?? [] }

    /// Splits `text` into `p<M>of<N> chunk` parts of at most `chunkLength` characters.
    public static func split(_ text: String, chunkLength: Int) -> [String] {
        let chars = Array(text)
        let size = max(chunkLength, 1)
        let n = max((chars.count + size - 1) / size, 1)
        return (0..<n).map { i in
            "p\(i + 1)of\(n) " + String(chars[min(i * size, chars.count)..<min((i + 1) * size, chars.count)])
        }
    }
}
