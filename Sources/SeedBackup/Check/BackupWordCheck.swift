public import BitcoinCrypto

/// Why the backup check did not pass (refused: nothing is written).
public enum BackupCheckError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input ended before every word was given.
    case aborted
    /// Word `word` (1-based) was wrong `attempts` times.
    case failed(word: Int, attempts: Int)

    public var description: String {
        switch self {
        case .aborted: "backup check aborted (end of input); nothing was written"
        case .failed(let word, let attempts): "backup check failed: word #\(word) was wrong \(attempts) times"
        }
    }
}

/// The backup check (docs/signer.md): the user types back the words at three distinct random positions of what they
/// wrote down, three attempts each; the typed words stay in secret memory and are compared ignoring surrounding
/// spaces and ASCII case.
public struct BackupWordCheck: Sendable {
    /// How many positions are asked.
    public static let positionCount = 3
    /// Attempts per position before the check fails.
    public static let attempts = 3

    /// The positions asked (0-based, ascending).
    public let positions: [Int]

    /// A check of a backup of `wordCount` words at positions drawn by `random` (below its bound).
    public init(wordCount: Int, random: (UInt32) -> UInt32 = SecureRandom.uniform) {
        var chosen: [Int] = []
        while chosen.count < min(Self.positionCount, wordCount) {
            let index = Int(random(UInt32(wordCount)))
            if !chosen.contains(index) { chosen.append(index) }
        }
        positions = chosen.sorted()
    }

    /// Asks each position: `ask(n)` gives the typed answer for word `n` (0-based; nil at the end of input), `retry`
    /// is told after a wrong answer with attempts left.
    ///
    /// - Throws: `BackupCheckError`, and what `ask` throws.
    public func run(
        word: (Int) -> String, ask: (Int) throws -> SecretBytes?, retry: (Int) -> Void
    ) throws {
        for index in positions {
            var passed = false
            for attempt in 1...Self.attempts {
                guard let answer = try ask(index) else { throw BackupCheckError.aborted }
                if Self.matches(answer, Array(word(index).utf8)) {
                    passed = true
                    break
                }
                if attempt < Self.attempts { retry(index) }
            }
            guard passed else { throw BackupCheckError.failed(word: index + 1, attempts: Self.attempts) }
        }
    }

    /// Whether `typed` is `word`, ignoring surrounding spaces and tabs and ASCII case.
    public static func matches(_ typed: SecretBytes, _ word: [UInt8]) -> Bool {
        typed.withUnsafeBytes { bytes in
            var start = 0
            var end = bytes.count
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            guard end - start == word.count else { return false }
            var difference: UInt8 = 0
            for (offset, letter) in word.enumerated() {
                let byte = bytes[start + offset]
                difference |= ((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) ^ letter
            }
            return difference == 0
        }
    }
}
