import Bitcoin
import BitcoinCrypto

/// One SLIP-39 share: its parameters and its share value, read from or written as words.
///
/// Layout (10 bits a word): identifier (15 bits), extendable flag (1), iteration exponent (4), group index (4),
/// group threshold − 1 (4), group count − 1 (4), member index (4), member threshold − 1 (4), the share value padded
/// on the left to a multiple of 10 bits, and a 30-bit RS1024 checksum.
/// - SeeAlso: https://github.com/satoshilabs/slips/blob/master/slip-0039.md#format-of-the-share-mnemonic
public struct SLIP39Share: Sendable, Equatable {
    /// The random 15-bit identifier shared by every share of one backup.
    public let identifier: UInt16
    /// Whether the identifier is left out of the encryption salt (extendable backups).
    public let extendable: Bool
    /// The PBKDF2 iteration exponent: 10,000 × 2^e iterations in all.
    public let iterationExponent: Int
    /// The group this share belongs to (0-based).
    public let groupIndex: Int
    /// How many groups are needed.
    public let groupThreshold: Int
    /// How many groups there are.
    public let groupCount: Int
    /// This share's index within its group (0-based).
    public let memberIndex: Int
    /// How many shares of this group are needed.
    public let memberThreshold: Int
    /// The share value, as long as the master secret; secret, so copies are wiped after use.
    public let value: SecretBytes

    static let radixBits = 10
    static let checksumWords = 3
    static let metadataWords = 7  // 4 words of parameters + 3 of checksum
    static let minimumWords = 20

    /// A share with these parameters (used when splitting).
    init(
        identifier: UInt16, extendable: Bool, iterationExponent: Int, groupIndex: Int, groupThreshold: Int,
        groupCount: Int, memberIndex: Int, memberThreshold: Int, value: SecretBytes
    ) {
        self.identifier = identifier
        self.extendable = extendable
        self.iterationExponent = iterationExponent
        self.groupIndex = groupIndex
        self.groupThreshold = groupThreshold
        self.groupCount = groupCount
        self.memberIndex = memberIndex
        self.memberThreshold = memberThreshold
        self.value = value
    }

    /// Reads one share from its words (case-insensitive, any whitespace between words).
    ///
    /// `number` names the share in errors (1-based).
    /// - Throws: `SLIP39Error.invalidLength`, `.unknownWord`, `.invalidChecksum`, `.invalidPadding`,
    ///   `.groupThresholdAboveCount`.
    public init(words phrase: String, number: Int = 1) throws(SLIP39Error) {
        let words = phrase.lowercased().split(whereSeparator: { $0.isWhitespace })
        var indexes: [Int] = []
        for (offset, word) in words.enumerated() {
            guard let index = SLIP39.wordIndex[String(word)] else {
                throw .unknownWord(share: number, number: offset + 1)
            }
            indexes.append(index)
        }
        defer { for i in indexes.indices { indexes[i] = 0 } }
        try self.init(indexes: indexes, number: number)
    }

    /// Reads one share from its 10-bit word indexes.
    init(indexes: [Int], number: Int) throws(SLIP39Error) {
        guard indexes.count >= Self.minimumWords else { throw .invalidLength(words: indexes.count) }
        let paddingBits = (Self.radixBits * (indexes.count - Self.metadataWords)) % 16
        guard paddingBits <= 8 else { throw .invalidLength(words: indexes.count) }
        // The extendable flag is bit 4 of the second word (15 identifier bits, then the flag, then 4 exponent bits).
        let extendable = (indexes[1] >> 4) & 1 == 1
        guard SLIP39.rs1024Polymod(SLIP39.customization(extendable: extendable) + indexes) == 1 else {
            throw .invalidChecksum(share: number)
        }
        let idExp = indexes[0] << 10 | indexes[1]
        let parameters = indexes[2] << 10 | indexes[3]
        identifier = UInt16(idExp >> 5)
        self.extendable = extendable
        iterationExponent = idExp & 0xF
        groupIndex = parameters >> 16 & 0xF
        groupThreshold = (parameters >> 12 & 0xF) + 1
        groupCount = (parameters >> 8 & 0xF) + 1
        memberIndex = parameters >> 4 & 0xF
        memberThreshold = (parameters & 0xF) + 1
        guard groupThreshold <= groupCount else { throw .groupThresholdAboveCount(share: number) }

        // The value words as one big-endian bit string: the first `paddingBits` must be zero.
        let valueWords = indexes[4..<(indexes.count - Self.checksumWords)]
        let totalBits = valueWords.count * Self.radixBits
        let byteCount = (totalBits - paddingBits) / 8
        guard byteCount >= 16, byteCount % 2 == 0 else { throw .invalidPadding(share: number) }
        var bits: [UInt8] = []
        bits.reserveCapacity(totalBits)
        for word in valueWords {
            for shift in stride(from: Self.radixBits - 1, through: 0, by: -1) { bits.append(UInt8(word >> shift & 1)) }
        }
        defer { for i in bits.indices { bits[i] = 0 } }
        guard bits[0..<paddingBits].allSatisfy({ $0 == 0 }) else { throw .invalidPadding(share: number) }
        let value = SecretBytes(count: byteCount)
        value.withUnsafeMutableBytes { out in
            for byte in 0..<byteCount {
                var acc: UInt8 = 0
                for bit in 0..<8 { acc = acc << 1 | bits[paddingBits + byte * 8 + bit] }
                out[byte] = acc
            }
        }
        self.value = value
    }

    /// The share's words, in secret memory (UTF-8, separated by single spaces).
    public func words() -> SecretBytes {
        var indexes = wordIndexes()
        defer { for i in indexes.indices { indexes[i] = 0 } }
        var text = Array(indexes.map { SLIP39.wordlist[$0] }.joined(separator: " ").utf8)
        defer { SecretBytes.wipe(&text) }
        return SecretBytes(copying: text)
    }

    /// The share's 10-bit word indexes, checksum included.
    func wordIndexes() -> [Int] {
        let idExp = Int(identifier) << 5 | (extendable ? 1 << 4 : 0) | iterationExponent
        let parameters =
            groupIndex << 16 | (groupThreshold - 1) << 12 | (groupCount - 1) << 8 | memberIndex << 4
            | (memberThreshold - 1)
        var indexes = [idExp >> 10, idExp & 0x3FF, parameters >> 10, parameters & 0x3FF]
        var bits: [UInt8] = []
        let valueBits = value.count * 8
        let wordCount = (valueBits + Self.radixBits - 1) / Self.radixBits
        bits.append(contentsOf: repeatElement(0, count: wordCount * Self.radixBits - valueBits))
        value.withUnsafeBytes { bytes in
            for byte in bytes { for shift in stride(from: 7, through: 0, by: -1) { bits.append(byte >> shift & 1) } }
        }
        defer { for i in bits.indices { bits[i] = 0 } }
        for word in 0..<wordCount {
            var acc = 0
            for bit in 0..<Self.radixBits { acc = acc << 1 | Int(bits[word * Self.radixBits + bit]) }
            indexes.append(acc)
        }
        let polymod =
            SLIP39.rs1024Polymod(
                SLIP39.customization(extendable: extendable) + indexes + repeatElement(0, count: Self.checksumWords))
            ^ 1
        for i in stride(from: Self.checksumWords - 1, through: 0, by: -1) {
            indexes.append(polymod >> (10 * i) & 0x3FF)
        }
        return indexes
    }

    public static func == (lhs: SLIP39Share, rhs: SLIP39Share) -> Bool {
        lhs.identifier == rhs.identifier && lhs.extendable == rhs.extendable
            && lhs.iterationExponent == rhs.iterationExponent && lhs.groupIndex == rhs.groupIndex
            && lhs.groupThreshold == rhs.groupThreshold && lhs.groupCount == rhs.groupCount
            && lhs.memberIndex == rhs.memberIndex && lhs.memberThreshold == rhs.memberThreshold
            && lhs.value.constantTimeEquals(rhs.value)
    }
}
