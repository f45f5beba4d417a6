import BitcoinCrypto
import Foundation

/// A BIP39 mnemonic (English wordlist): entropy of 128 to 256 bits written as 12 to 24 words with a checksum.
///
/// The entropy is held in `SecretBytes`; the words are produced on demand into secret memory (`phrase`) or one at a
/// time (`word(at:)`) for display. The description is redacted and there is no `Codable`.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0039.mediawiki
public struct Mnemonic: Sendable {
    /// The word counts BIP39 allows.
    public static let allowedWordCounts = [12, 15, 18, 21, 24]

    /// The entropy (16, 20, 24, 28 or 32 bytes).
    public let entropy: SecretBytes

    /// Wraps entropy of 16, 20, 24, 28 or 32 bytes.
    ///
    /// - Throws: `MnemonicError.invalidEntropyLength`.
    public init(entropy: SecretBytes) throws(MnemonicError) {
        guard [16, 20, 24, 28, 32].contains(entropy.count) else { throw .invalidEntropyLength(entropy.count) }
        self.entropy = entropy
    }

    /// A new mnemonic of `wordCount` words from the operating system's random source.
    ///
    /// - Throws: `MnemonicError.invalidWordCount` for a count BIP39 does not allow.
    public static func generate(wordCount: Int = 24) throws(MnemonicError) -> Mnemonic {
        guard allowedWordCounts.contains(wordCount) else { throw .invalidWordCount(wordCount) }
        return try Mnemonic(entropy: SecureRandom.secret(wordCount * 4 / 3))
    }

    /// Reads a phrase held in secret memory (UTF-8); see `init(phrase: String)`.
    ///
    /// - Throws: `MnemonicError.invalidWordCount`, `.unknownWord` or `.invalidChecksum`.
    public init(phrase: SecretBytes) throws(MnemonicError) {
        var bytes = phrase.unsafeCopyToArray()
        defer { SecretBytes.wipe(&bytes) }
        try self.init(phrase: String(decoding: bytes, as: UTF8.self))
    }

    /// Reads a phrase: NFKD-normalised, lower-cased, words separated by any whitespace.
    ///
    /// - Throws: `MnemonicError.invalidWordCount`, `.unknownWord` (with the word's number and suggestions) or
    ///   `.invalidChecksum`.
    public init(phrase: String) throws(MnemonicError) {
        let words = phrase.decomposedStringWithCompatibilityMapping.lowercased()
            .split(whereSeparator: { $0.isWhitespace })
        guard Self.allowedWordCounts.contains(words.count) else { throw .invalidWordCount(words.count) }
        var indexes: [Int] = []
        indexes.reserveCapacity(words.count)
        for (offset, word) in words.enumerated() {
            guard let index = Self.wordIndex[String(word)] else {
                throw .unknownWord(number: offset + 1, suggestions: Self.suggestions(for: String(word)))
            }
            indexes.append(index)
        }
        // 11 bits per word: ENT bits of entropy, then ENT/32 checksum bits.
        let totalBits = words.count * 11
        let checksumBits = totalBits / 33
        let entropyBytes = (totalBits - checksumBits) / 8
        var bits = [UInt8](repeating: 0, count: (totalBits + 7) / 8)
        defer { SecretBytes.wipe(&bits) }
        for (n, index) in indexes.enumerated() {
            for b in 0..<11 where index >> (10 - b) & 1 == 1 {
                let position = n * 11 + b
                bits[position / 8] |= 0x80 >> UInt8(position % 8)
            }
        }
        let entropy = SecretBytes(copying: bits[0..<entropyBytes])
        var hasher = SHA256()
        hasher.update(entropy)
        let checksum = hasher.finalize()[0] >> UInt8(8 - checksumBits)
        let given = bits[entropyBytes] >> UInt8(8 - checksumBits)
        guard checksum == given else { throw .invalidChecksum }
        try self.init(entropy: entropy)
    }

    /// The number of words.
    public var wordCount: Int { entropy.count * 3 / 4 }

    /// The word at `index` (0-based), for showing one word at a time.
    public func word(at index: Int) -> String {
        precondition((0..<wordCount).contains(index), "mnemonic word index out of range")
        return Self.englishWordlist[wordIndexes()[index]]
    }

    /// The words joined by single spaces, as UTF-8 in secret memory.
    public var phrase: SecretBytes {
        let indexes = wordIndexes()
        var bytes: [UInt8] = []
        for (n, index) in indexes.enumerated() {
            if n > 0 { bytes.append(UInt8(ascii: " ")) }
            bytes += Self.englishWordlist[index].utf8
        }
        defer { SecretBytes.wipe(&bytes) }
        return SecretBytes(copying: bytes)
    }

    /// The 512-bit seed: PBKDF2-HMAC-SHA512(phrase, "mnemonic" + passphrase, 2048 rounds), passphrase NFKD-normalised.
    public func seed(passphrase: String = "") -> SecretBytes {
        seed(normalizedPassphrase: SecretBytes(utf8: passphrase.decomposedStringWithCompatibilityMapping))
    }

    /// The seed for a passphrase held in secret memory (UTF-8; it is NFKD-normalised here).
    public func seed(passphrase: SecretBytes) -> SecretBytes {
        var bytes = passphrase.unsafeCopyToArray()
        defer { SecretBytes.wipe(&bytes) }
        return seed(passphrase: String(decoding: bytes, as: UTF8.self))
    }

    private func seed(normalizedPassphrase: SecretBytes) -> SecretBytes {
        var salt = Array("mnemonic".utf8) + normalizedPassphrase.unsafeCopyToArray()
        defer { SecretBytes.wipe(&salt) }
        return PBKDF2.hmacSHA512(password: phrase, salt: salt, iterations: 2048, keyLength: 64)
    }

    /// The 11-bit word indexes of entropy ‖ checksum.
    private func wordIndexes() -> [Int] {
        var bytes = entropy.unsafeCopyToArray()
        defer { SecretBytes.wipe(&bytes) }
        bytes.append(SHA256.hash(bytes)[0])
        var out: [Int] = []
        out.reserveCapacity(wordCount)
        for n in 0..<wordCount {
            var value = 0
            for b in 0..<11 {
                let position = n * 11 + b
                value = value << 1 | Int(bytes[position / 8] >> UInt8(7 - position % 8) & 1)
            }
            out.append(value)
        }
        return out
    }

    /// Word → index in the English list.
    static let wordIndex: [String: Int] = Dictionary(
        uniqueKeysWithValues: englishWordlist.enumerated().map { ($1, $0) })
}

extension Mnemonic: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "Mnemonic(\(wordCount) words, <redacted>)" }
    public var debugDescription: String { description }
}
