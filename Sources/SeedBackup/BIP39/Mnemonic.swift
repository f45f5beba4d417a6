import Bitcoin
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
    /// An ASCII phrase (every English BIP39 word is ASCII) is read without leaving secret memory: words are
    /// lower-cased and looked up byte by byte, the word indexes and the bits are kept in `SecretBytes`. A phrase with
    /// other characters goes through `init(phrase: String)` for its NFKD normalisation (its temporary copy is wiped;
    /// the `String` it makes is not).
    /// - Throws: `MnemonicError.invalidWordCount`, `.unknownWord` or `.invalidChecksum`.
    public init(phrase: SecretBytes) throws(MnemonicError) {
        let ascii = phrase.withUnsafeBytes { $0.allSatisfy { $0 < 0x80 } }
        guard ascii else {
            var bytes = phrase.unsafeCopyToArray()
            defer { SecretBytes.wipe(&bytes) }
            try self.init(phrase: String(decoding: bytes, as: UTF8.self))
            return
        }
        // Word boundaries first (positions are not secret), then each word's index into secret memory.
        var ranges: [Range<Int>] = []
        phrase.withUnsafeBytes { bytes in
            var start: Int?
            for (i, byte) in bytes.enumerated() {
                let space = byte == 0x20 || (0x09...0x0D).contains(byte)
                if space, let begun = start {
                    ranges.append(begun..<i)
                    start = nil
                } else if !space, start == nil {
                    start = i
                }
            }
            if let begun = start { ranges.append(begun..<bytes.count) }
        }
        guard Self.allowedWordCounts.contains(ranges.count) else { throw .invalidWordCount(ranges.count) }
        let indexes = SecretBytes(count: 2 * ranges.count)
        for (n, range) in ranges.enumerated() {
            let found: Int? = phrase.withUnsafeBytes { bytes in
                Self.lookUp(UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
            guard let found else {
                var typed = phrase.slice(range).unsafeCopyToArray()
                defer { SecretBytes.wipe(&typed) }
                let word = String(decoding: typed, as: UTF8.self).lowercased()
                throw .unknownWord(number: n + 1, suggestions: Self.suggestions(for: word))
            }
            indexes.withUnsafeMutableBytes {
                $0[2 * n] = UInt8(found >> 8)
                $0[2 * n + 1] = UInt8(found & 0xFF)
            }
        }
        try self.init(indexes: indexes, wordCount: ranges.count)
    }

    /// The index of a lower- or upper-case ASCII word in the English list (binary search, byte comparison), nil if
    /// it is not there.
    static func lookUp(_ word: UnsafeRawBufferPointer) -> Int? {
        guard (1...8).contains(word.count) else { return nil }
        func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        var low = 0
        var high = englishWordlist.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let candidate = englishWordlist[middle].utf8
            var order = 0
            var position = 0
            for letter in candidate {
                guard position < word.count else {
                    order = 1  // the word is a prefix of the candidate: it sorts first
                    break
                }
                let typed = lower(word[position])
                if typed != letter {
                    order = typed < letter ? 1 : -1
                    break
                }
                position += 1
            }
            if order == 0, position < word.count { order = -1 }  // the candidate is a prefix of the word
            if order == 0 { return middle }
            if order > 0 { high = middle - 1 } else { low = middle + 1 }
        }
        return nil
    }

    /// The entropy of `wordCount` 11-bit indexes (two big-endian bytes each, in secret memory), after the checksum.
    ///
    /// - Throws: `MnemonicError.invalidChecksum`.
    init(indexes: SecretBytes, wordCount: Int) throws(MnemonicError) {
        // 11 bits per word: ENT bits of entropy, then ENT/32 checksum bits.
        let totalBits = wordCount * 11
        let checksumBits = totalBits / 33
        let entropyBytes = (totalBits - checksumBits) / 8
        let bits = SecretBytes(count: (totalBits + 7) / 8)
        indexes.withUnsafeBytes { source in
            bits.withUnsafeMutableBytes { target in
                for n in 0..<wordCount {
                    let index = Int(source[2 * n]) << 8 | Int(source[2 * n + 1])
                    for b in 0..<11 where index >> (10 - b) & 1 == 1 {
                        let position = n * 11 + b
                        target[position / 8] |= 0x80 >> UInt8(position % 8)
                    }
                }
            }
        }
        let entropy = bits.slice(0..<entropyBytes)
        var hasher = SHA256()
        hasher.update(entropy)
        var digest = hasher.finalize()
        defer { SecretBytes.wipe(&digest) }
        let checksum = digest[0] >> UInt8(8 - checksumBits)
        let given = bits.withUnsafeBytes { $0[entropyBytes] } >> UInt8(8 - checksumBits)
        guard checksum == given else { throw .invalidChecksum }
        try self.init(entropy: entropy)
    }

    /// Reads a phrase: NFKD-normalised, lower-cased, words separated by any whitespace.
    ///
    /// - Throws: `MnemonicError.invalidWordCount`, `.unknownWord` (with the word's number and suggestions) or
    ///   `.invalidChecksum`.
    public init(phrase: String) throws(MnemonicError) {
        let words = phrase.decomposedStringWithCompatibilityMapping.lowercased()
            .split(whereSeparator: { $0.isWhitespace })
        guard Self.allowedWordCounts.contains(words.count) else { throw .invalidWordCount(words.count) }
        let indexes = SecretBytes(count: 2 * words.count)
        for (offset, word) in words.enumerated() {
            guard let index = Self.wordIndex[String(word)] else {
                throw .unknownWord(number: offset + 1, suggestions: Self.suggestions(for: String(word)))
            }
            indexes.withUnsafeMutableBytes {
                $0[2 * offset] = UInt8(index >> 8)
                $0[2 * offset + 1] = UInt8(index & 0xFF)
            }
        }
        try self.init(indexes: indexes, wordCount: words.count)
    }

    /// The number of words.
    public var wordCount: Int { entropy.count * 3 / 4 }

    /// The word at `index` (0-based), for showing one word at a time.
    public func word(at index: Int) -> String {
        precondition((0..<wordCount).contains(index), "mnemonic word index out of range")
        return Self.englishWordlist[wordIndexes().withUnsafeBytes { Int($0[2 * index]) << 8 | Int($0[2 * index + 1]) }]
    }

    /// The words joined by single spaces, as UTF-8 in secret memory.
    public var phrase: SecretBytes {
        let indexes = wordIndexes()
        let words = (0..<wordCount).map { n in
            Self.englishWordlist[indexes.withUnsafeBytes { Int($0[2 * n]) << 8 | Int($0[2 * n + 1]) }].utf8
        }
        let out = SecretBytes(count: words.reduce(wordCount - 1) { $0 + $1.count })
        out.withUnsafeMutableBytes { target in
            var at = 0
            for (n, word) in words.enumerated() {
                if n > 0 {
                    target[at] = UInt8(ascii: " ")
                    at += 1
                }
                for letter in word {
                    target[at] = letter
                    at += 1
                }
            }
        }
        return out
    }

    /// The 512-bit seed: PBKDF2-HMAC-SHA512(phrase, "mnemonic" + passphrase, 2048 rounds), passphrase NFKD-normalised.
    public func seed(passphrase: String = "") -> SecretBytes {
        seed(normalizedPassphrase: SecretBytes(utf8: passphrase.decomposedStringWithCompatibilityMapping))
    }

    /// The seed for a passphrase held in secret memory (UTF-8; it is NFKD-normalised here).
    ///
    /// An ASCII passphrase is its own NFKD form and never leaves secret memory; another goes through a `String` for
    /// the normalisation (the temporary byte copy is wiped).
    public func seed(passphrase: SecretBytes) -> SecretBytes {
        if passphrase.withUnsafeBytes({ $0.allSatisfy { $0 < 0x80 } }) {
            return seed(normalizedPassphrase: passphrase)
        }
        var bytes = passphrase.unsafeCopyToArray()
        defer { SecretBytes.wipe(&bytes) }
        return seed(passphrase: String(decoding: bytes, as: UTF8.self))
    }

    private func seed(normalizedPassphrase: SecretBytes) -> SecretBytes {
        let salt = SecretBytes(utf8: "mnemonic").appending(normalizedPassphrase)
        return PBKDF2.hmacSHA512(password: phrase, salt: salt, iterations: 2048, keyLength: 64)
    }

    /// The 11-bit word indexes of entropy ‖ checksum, two big-endian bytes each, in secret memory.
    private func wordIndexes() -> SecretBytes {
        var hasher = SHA256()
        hasher.update(entropy)
        var digest = hasher.finalize()
        defer { SecretBytes.wipe(&digest) }
        let bits = entropy.appending(SecretBytes(copying: digest.prefix(1)))
        let out = SecretBytes(count: 2 * wordCount)
        bits.withUnsafeBytes { bytes in
            out.withUnsafeMutableBytes { target in
                for n in 0..<wordCount {
                    var value = 0
                    for b in 0..<11 {
                        let position = n * 11 + b
                        value = value << 1 | Int(bytes[position / 8] >> UInt8(7 - position % 8) & 1)
                    }
                    target[2 * n] = UInt8(value >> 8)
                    target[2 * n + 1] = UInt8(value & 0xFF)
                }
            }
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
