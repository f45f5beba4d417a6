import BitcoinCrypto
import TestSupport
import Testing

@testable import Bitcoin
@testable import SeedBackup

/// BIP39: the trezor/python-mnemonic English vectors (Tests/Vectors/bip39/vectors.json), the wordlist, typed errors.
@Suite("BIP39")
struct BIP39Tests {
    struct Entry: Sendable, CustomTestStringConvertible {
        let entropy: String
        let mnemonic: String
        let seed: String
        let xprv: String
        var testDescription: String { "\(entropy.count / 2)-byte entropy \(entropy.prefix(8))…" }
    }

    static let english: [Entry] = {
        guard let file = try? Vectors.json("bip39/vectors.json", as: [String: [[String]]].self) else { return [] }
        return (file["english"] ?? []).map { Entry(entropy: $0[0], mnemonic: $0[1], seed: $0[2], xprv: $0[3]) }
    }()

    @Test("the vector file has all 24 English entries")
    func count() { #expect(Self.english.count == 24) }

    @Test("entropy → mnemonic → seed (passphrase TREZOR) → xprv", arguments: english)
    func vector(entry: Entry) throws {
        let mnemonic = try Mnemonic(entropy: SecretBytes(copying: TestHex.bytes(entry.entropy)))
        #expect(mnemonic.phrase.unsafeCopyToArray() == Array(entry.mnemonic.utf8))
        let parsed = try Mnemonic(phrase: entry.mnemonic)
        #expect(parsed.entropy.unsafeCopyToArray() == TestHex.bytes(entry.entropy))
        let seed = parsed.seed(passphrase: "TREZOR")
        #expect(seed.unsafeCopyToArray() == TestHex.bytes(entry.seed))
        #expect(try ExtendedPrivateKey(seed: seed).base58String == entry.xprv)
        #expect(parsed.seed(passphrase: SecretBytes(utf8: "TREZOR")) == seed)
    }

    @Test("the wordlist hashes to the value in the vectors README")
    func wordlistHash() throws {
        let text = Mnemonic.englishWordlist.map { $0 + "\n" }.joined()
        #expect(
            SHA256.hash(Array(text.utf8)).hexString
                == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda")
        #expect(try Vectors.text("bip39/english.txt") == text)
    }

    @Test("generated mnemonics have the asked word count and round-trip", arguments: [12, 15, 18, 21, 24])
    func generate(words: Int) throws {
        let mnemonic = try Mnemonic.generate(wordCount: words)
        #expect(mnemonic.wordCount == words)
        let text = String(decoding: mnemonic.phrase.unsafeCopyToArray(), as: UTF8.self)
        #expect(try Mnemonic(phrase: text).entropy == mnemonic.entropy)
        #expect((0..<words).map { mnemonic.word(at: $0) }.joined(separator: " ") == text)
    }

    @Test("bad word counts, entropy lengths and checksums get typed errors")
    func errors() {
        #expect(throws: MnemonicError.invalidWordCount(11)) {
            _ = try Mnemonic(phrase: Array(repeating: "abandon", count: 11).joined(separator: " "))
        }
        #expect(throws: MnemonicError.invalidWordCount(13)) { _ = try Mnemonic.generate(wordCount: 13) }
        #expect(throws: MnemonicError.invalidEntropyLength(17)) { _ = try Mnemonic(entropy: SecretBytes(count: 17)) }
        #expect(throws: MnemonicError.invalidChecksum) {
            _ = try Mnemonic(phrase: Array(repeating: "abandon", count: 12).joined(separator: " "))
        }
    }

    @Test("an unknown word is reported by number with the nearest words")
    func typoHints() throws {
        let typo = "abandon abandon abandon abandon abandon abandonn abandon abandon abandon abandon abandon about"
        #expect(throws: MnemonicError.unknownWord(number: 6, suggestions: ["abandon"])) {
            _ = try Mnemonic(phrase: typo)
        }
        #expect(Mnemonic.suggestions(for: "zoa").contains("zoo"))
        #expect(Mnemonic.suggestions(for: "lemno").first == "lemon")  // transposition
        #expect(Mnemonic.suggestions(for: "acount").first == "account")
        #expect(Mnemonic.suggestions(for: "abandonment") == ["abandon"])  // no close word: longest common prefix
        #expect(Mnemonic.suggestions(for: "xylophone").isEmpty)  // no English BIP39 word starts with x
    }

    @Test("input is NFKD-normalised, case-folded and split on any whitespace")
    func normalisation() throws {
        let spaced =
            " Abandon\tabandon  abandon abandon abandon abandon abandon abandon abandon abandon abandon ABOUT\n"
        let mnemonic = try Mnemonic(phrase: spaced)
        #expect(mnemonic.entropy.unsafeCopyToArray() == [UInt8](repeating: 0, count: 16))
        // "ﬁ" (U+FB01) decomposes to "fi" under NFKD, in the passphrase as in the words.
        #expect(mnemonic.seed(passphrase: "\u{FB01}") == mnemonic.seed(passphrase: "fi"))
        #expect(mnemonic.seed(passphrase: "e\u{301}") == mnemonic.seed(passphrase: "\u{E9}"))
        #expect("\(mnemonic)" == "Mnemonic(12 words, <redacted>)")
    }

    @Test("a phrase in secret memory is read byte by byte to the same entropy, for every vector", arguments: english)
    func secretPhrase(entry: Entry) throws {
        let fromSecret = try Mnemonic(phrase: SecretBytes(utf8: entry.mnemonic.uppercased() + "\n"))
        #expect(fromSecret.entropy.unsafeCopyToArray() == TestHex.bytes(entry.entropy))
        #expect(
            fromSecret.seed(passphrase: SecretBytes(utf8: "TREZOR")).unsafeCopyToArray() == TestHex.bytes(entry.seed))
    }

    @Test("every word of the list is found by the byte lookup, and near misses are not")
    func byteLookup() {
        for (index, word) in Mnemonic.englishWordlist.enumerated() {
            let found = Array(word.utf8).withUnsafeBytes { Mnemonic.lookUp($0) }
            #expect(found == index, "\(word)")
        }
        for miss in ["abando", "abandonn", "zooo", "a", "", "zzzzzzzzz", "ab1"] {
            #expect(Array(miss.utf8).withUnsafeBytes { Mnemonic.lookUp($0) } == nil, "\(miss)")
        }
    }

    @Test("the secret-memory path gives the String path's errors")
    func secretPhraseErrors() {
        let typo = "abandon abandon abandon abandon abandon abandonn abandon abandon abandon abandon abandon about"
        #expect(throws: MnemonicError.unknownWord(number: 6, suggestions: ["abandon"])) {
            _ = try Mnemonic(phrase: SecretBytes(utf8: typo))
        }
        #expect(throws: MnemonicError.invalidWordCount(11)) {
            _ = try Mnemonic(phrase: SecretBytes(utf8: Array(repeating: "abandon", count: 11).joined(separator: " ")))
        }
        #expect(throws: MnemonicError.invalidChecksum) {
            _ = try Mnemonic(phrase: SecretBytes(utf8: Array(repeating: "abandon", count: 12).joined(separator: " ")))
        }
        // A non-ASCII phrase still goes through NFKD: full-width letters are the same words.
        let wide = "ａｂａｎｄｏｎ abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"
        #expect((try? Mnemonic(phrase: SecretBytes(utf8: wide)))?.entropy == SecretBytes(count: 16))
    }
}
