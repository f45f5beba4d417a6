/// Splits a message into fragments and emits an endless sequence of fountain parts: the first `seqLen` are the
/// fragments themselves, later ones XOR a pseudo-random set of fragments chosen from the sequence number.
///
/// - SeeAlso: https://github.com/BlockchainCommons/bc-ur/blob/master/src/fountain-encoder.cpp
package struct FountainEncoder: Sendable {
    package let messageLength: Int
    package let checksum: UInt32
    package let fragmentLength: Int
    package let fragments: [[UInt8]]
    package private(set) var seqNum: UInt32

    /// Number of fragments (the length of one full pass of simple parts).
    package var seqLen: Int { fragments.count }

    /// Prepares `message` (non-empty) for fragments of at most `maxFragmentLength` bytes.
    package init(message: [UInt8], maxFragmentLength: Int, firstSeqNum: UInt32 = 0, minFragmentLength: Int = 10) {
        messageLength = message.count
        checksum = CRC32.checksum(message)
        fragmentLength = FountainUtilities.nominalFragmentLength(
            messageLength: message.count, minFragmentLength: minFragmentLength, maxFragmentLength: maxFragmentLength)
        fragments = FountainUtilities.partition(message, fragmentLength: max(fragmentLength, 1))
        seqNum = firstSeqNum
    }

    /// Returns the next part (sequence numbers wrap at 2^32, as in the reference).
    package mutating func nextPart() -> FountainPart {
        seqNum &+= 1
        let indexes = FountainUtilities.chooseFragments(seqNum: seqNum, seqLen: seqLen, checksum: checksum)
        var mixed = [UInt8](repeating: 0, count: fragmentLength)
        for index in indexes { FountainUtilities.xorInPlace(&mixed, fragments[index]) }
        return FountainPart(
            seqNum: seqNum, seqLen: seqLen, messageLength: messageLength, checksum: checksum, data: mixed)
    }
}
