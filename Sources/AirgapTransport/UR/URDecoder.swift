/// Collects single- or multi-part UR strings in any order until the UR is complete.
///
/// - SeeAlso: https://github.com/BlockchainCommons/bc-ur/blob/master/src/ur-decoder.cpp
public struct URDecoder: Sendable {
    private var fountain = FountainDecoder()
    /// The type of the parts received so far.
    public private(set) var type: String?
    /// The decoded UR, once complete.
    public private(set) var result: UR?

    public init() {}

    /// Adds one part string; returns false when it was a duplicate or arrived after completion.
    ///
    /// - Throws: `URError` for a malformed part, a part of another type or another message.
    @discardableResult
    public mutating func receive(_ text: String) throws(URError) -> Bool {
        let parsed = try URString(text)
        if let type, type != parsed.type { throw .mixedTypes(expected: type, actual: parsed.type) }
        let bytes: [UInt8]
        do { bytes = try Bytewords.decode(parsed.body, style: .minimal) } catch { throw .bytewords(error) }
        guard let sequence = parsed.sequence else {
            let ur = try UR(type: parsed.type, cbor: bytes)
            if let result {
                guard result == ur else {
                    throw .partFromDifferentMessage(
                        expectedChecksum: CRC32.checksum(result.cbor), actualChecksum: CRC32.checksum(bytes), seqNum: 1)
                }
                return false
            }
            if fountain.seqLen != nil {
                throw .partFromDifferentMessage(
                    expectedChecksum: fountain.checksum ?? 0, actualChecksum: CRC32.checksum(bytes), seqNum: 1)
            }
            type = parsed.type
            result = ur
            return true
        }
        let part = try FountainPart(cbor: bytes)
        guard part.seqNum == sequence.seqNum, part.seqLen == sequence.seqLen else {
            throw .sequenceMismatch(header: sequence.text, seqNum: part.seqNum, seqLen: part.seqLen)
        }
        if let result {
            guard CRC32.checksum(result.cbor) == part.checksum else {
                throw .partFromDifferentMessage(
                    expectedChecksum: CRC32.checksum(result.cbor), actualChecksum: part.checksum, seqNum: part.seqNum)
            }
            return false
        }
        let accepted = try fountain.receive(part)
        type = parsed.type
        if let message = fountain.message { result = try UR(type: parsed.type, cbor: message) }
        return accepted
    }

    /// Whether the UR is complete.
    public var isComplete: Bool { result != nil }
    /// Number of fragments of a multi-part UR (1 for single part), once known.
    public var expectedPartCount: Int? { result != nil && fountain.seqLen == nil ? 1 : fountain.seqLen }
    /// The reference's progress estimate (0...1).
    public var estimatedFractionComplete: Double { isComplete ? 1 : fountain.estimatedFractionComplete }
    /// Fragment indexes (1-based) not yet recovered; a later mixed part may still supply any of them.
    public var missingFragments: [Int] { isComplete ? [] : fountain.missingFragmentIndexes.map { $0 + 1 } }
    /// Number of distinct parts accepted.
    public var receivedPartCount: Int {
        fountain.processedPartCount + (result != nil && fountain.seqLen == nil ? 1 : 0)
    }
}
