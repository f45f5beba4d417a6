import BitcoinCrypto

/// Dice rolls mixed with the operating system's entropy for a new seed (`init --dice`).
///
/// The seed is as strong as the better of the two sources. Rolls stay in secret memory.
public struct DiceEntropy {
    /// Why the rolls cannot make a seed.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        case tooFewRolls(count: Int, needed: Int, words: Int)
        public var description: String {
            switch self {
            case .tooFewRolls(let count, let needed, let words):
                "only \(count) dice rolls; \(needed) are needed for \(words) words"
            }
        }
    }

    /// The most rolls kept.
    public static let capacity = 1024

    /// The words of the mnemonic to make (12 or 24).
    public let words: Int
    private let rolls = SecretBytes(count: Self.capacity)
    /// The rolls read so far.
    public private(set) var count = 0

    /// Rolls for a mnemonic of `words` words.
    public init(words: Int) { self.words = words }

    /// The rolls needed: 50 for 12 words (129 bits), 99 for 24 (255 bits).
    public var needed: Int { words == 12 ? 50 : 99 }

    /// Whether enough rolls have been read.
    public var isEnough: Bool { count >= needed }

    /// Reads the d6 rolls of `line`: digits 1 to 6; anything else between them is ignored.
    public mutating func add(line: String) {
        for scalar in line.unicodeScalars where ("1"..."6").contains(scalar) && count < Self.capacity {
            let index = count
            rolls.withUnsafeMutableBytes { $0[index] = UInt8(scalar.value) }
            count += 1
        }
    }

    /// SHA-256("airlock-dice-v1" ‖ OS entropy ‖ rolls) cut to the entropy's length.
    ///
    /// - Throws: `DiceEntropy.Error.tooFewRolls`.
    public func mix(osEntropy: SecretBytes) throws(DiceEntropy.Error) -> SecretBytes {
        guard isEnough else { throw .tooFewRolls(count: count, needed: needed, words: words) }
        var hasher = SHA256()
        hasher.update(Array("airlock-dice-v1".utf8))
        hasher.update(osEntropy)
        hasher.update(rolls.slice(0..<count))
        var digest = hasher.finalize()
        defer { SecretBytes.wipe(&digest) }
        return SecretBytes(copying: digest.prefix(osEntropy.count))
    }
}
