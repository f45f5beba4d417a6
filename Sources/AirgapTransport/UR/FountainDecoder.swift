/// Reassembles a message from fountain parts received in any order, with duplicates and losses.
///
/// Simple parts fill their fragment; mixed parts are reduced by every known fragment and by each other until they
/// become simple. Parts whose seqLen, messageLen, checksum or fragment length differ from the first are rejected.
/// - SeeAlso: https://github.com/BlockchainCommons/bc-ur/blob/master/src/fountain-decoder.cpp
package struct FountainDecoder: Sendable {
    /// Largest message the decoder accepts (bytes).
    package static let maxMessageLength = 16 * 1024 * 1024
    /// Largest fragment count the decoder accepts; bounds the per-part shuffle cost.
    package static let maxSequenceLength = 10_000

    private struct Pending: Sendable {
        var indexes: [Int]  // sorted
        var data: [UInt8]
    }

    private var expected: (seqLen: Int, messageLength: Int, checksum: UInt32, fragmentLength: Int)?
    private var fragments: [Int: [UInt8]] = [:]
    private var mixed: [[Int]: [UInt8]] = [:]
    private var queue: [Pending] = []
    private var seenSeqNums: Set<UInt32> = []
    /// The reassembled message, once every fragment is known and the checksum matches.
    package private(set) var message: [UInt8]?
    /// Number of distinct parts accepted.
    package private(set) var processedPartCount = 0

    package init() {}

    /// Number of fragments, once the first part arrived.
    package var seqLen: Int? { expected?.seqLen }
    /// CRC-32 of the message being decoded, once the first part arrived.
    package var checksum: UInt32? { expected?.checksum }
    /// Whether the message is complete.
    package var isComplete: Bool { message != nil }
    /// Fragment indexes (0-based) not yet recovered.
    package var missingFragmentIndexes: [Int] {
        guard let expected else { return [] }
        return (0..<expected.seqLen).filter { fragments[$0] == nil }
    }
    /// The reference's estimate: parts processed over 1.75 × seqLen, capped at 0.99 until complete.
    package var estimatedFractionComplete: Double {
        if isComplete { return 1 }
        guard let expected else { return 0 }
        return min(0.99, Double(processedPartCount) / (Double(expected.seqLen) * 1.75))
    }

    /// Adds `part`; returns false for a duplicate or a part after completion.
    ///
    /// - Throws: `URError.partFromDifferentMessage` when the part does not match the first part's message,
    ///   `URError.checksumMismatch` when the reassembled message fails its CRC-32.
    @discardableResult
    package mutating func receive(_ part: FountainPart) throws(URError) -> Bool {
        if isComplete { return false }
        if let expected {
            guard part.seqLen == expected.seqLen, part.messageLength == expected.messageLength,
                part.checksum == expected.checksum, part.data.count == expected.fragmentLength
            else {
                throw .partFromDifferentMessage(
                    expectedChecksum: expected.checksum, actualChecksum: part.checksum, seqNum: part.seqNum)
            }
        } else {
            expected = (part.seqLen, part.messageLength, part.checksum, part.data.count)
        }
        guard seenSeqNums.insert(part.seqNum).inserted else { return false }
        let indexes = FountainUtilities.chooseFragments(
            seqNum: part.seqNum, seqLen: part.seqLen, checksum: part.checksum)
        queue.append(Pending(indexes: indexes.sorted(), data: part.data))
        while !isComplete, !queue.isEmpty {
            let item = queue.removeFirst()
            if item.indexes.count == 1 { try processSimple(item) } else { processMixed(item) }
        }
        processedPartCount += 1
        return true
    }

    private mutating func processSimple(_ part: Pending) throws(URError) {
        let index = part.indexes[0]
        guard fragments[index] == nil, let expected else { return }
        fragments[index] = part.data
        if fragments.count == expected.seqLen {
            var assembled: [UInt8] = []
            assembled.reserveCapacity(expected.seqLen * expected.fragmentLength)
            for i in 0..<expected.seqLen { assembled += fragments[i] ?? [] }
            let result = Array(assembled.prefix(expected.messageLength))
            guard CRC32.checksum(result) == expected.checksum else {
                throw .checksumMismatch(expected: expected.checksum, actual: CRC32.checksum(result))
            }
            message = result
        } else {
            reduceMixed(by: part)
        }
    }

    private mutating func processMixed(_ part: Pending) {
        guard mixed[part.indexes] == nil else { return }
        // Reduce by every known fragment (each is a strict subset while more than one index remains).
        var remaining: [Int] = []
        var data = part.data
        for index in part.indexes {
            if let fragment = fragments[index] { Self.xorInPlace(&data, fragment) } else { remaining.append(index) }
        }
        guard !remaining.isEmpty else { return }  // every fragment already known: nothing new
        var reduced = Pending(indexes: remaining, data: data)
        for (indexes, mixedData) in mixed where reduced.indexes.count > 1 {
            reduced = Self.reduce(reduced, by: Pending(indexes: indexes, data: mixedData))
        }
        if reduced.indexes.count == 1 {
            queue.append(reduced)
        } else if mixed[reduced.indexes] == nil {
            reduceMixed(by: reduced)
            mixed[reduced.indexes] = reduced.data
        }
    }

    private mutating func reduceMixed(by part: Pending) {
        var next: [[Int]: [UInt8]] = [:]
        for (indexes, data) in mixed {
            let reduced = Self.reduce(Pending(indexes: indexes, data: data), by: part)
            if reduced.indexes.count == 1 { queue.append(reduced) } else { next[reduced.indexes] = reduced.data }
        }
        mixed = next
    }

    /// Removes `b` from `a` when `b`'s fragments are a strict subset of `a`'s (both index lists sorted).
    private static func reduce(_ a: Pending, by b: Pending) -> Pending {
        guard b.indexes.count < a.indexes.count else { return a }
        var difference: [Int] = []
        difference.reserveCapacity(a.indexes.count - b.indexes.count)
        var j = 0
        for index in a.indexes {
            if j < b.indexes.count, b.indexes[j] == index {
                j += 1
            } else if j < b.indexes.count, b.indexes[j] < index {
                return a  // b has an index a lacks
            } else {
                difference.append(index)
            }
        }
        guard j == b.indexes.count else { return a }
        var data = a.data
        xorInPlace(&data, b.data)
        return Pending(indexes: difference, data: data)
    }

    private static func xorInPlace(_ a: inout [UInt8], _ b: [UInt8]) { FountainUtilities.xorInPlace(&a, b) }
}
