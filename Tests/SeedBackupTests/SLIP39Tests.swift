import BitcoinCrypto
import TestSupport
import Testing

@testable import Bitcoin
@testable import SeedBackup

/// SLIP-39: trezor/python-shamir-mnemonic `vectors.json` (Tests/Vectors/slip39/vectors.json), every entry, with the
/// passphrase "TREZOR"; an entry with an empty secret must be rejected.
@Suite("SLIP-39")
struct SLIP39Tests {
    struct Entry: Sendable, CustomTestStringConvertible {
        let description: String
        let mnemonics: [String]
        let secret: String
        let xprv: String
        var testDescription: String { description }
    }

    static let entries: [Entry] = {
        guard let file = try? Vectors.anyJSON("slip39/vectors.json") as? [[Any]] else { return [] }
        return file.compactMap { row in
            guard row.count == 4, let description = row[0] as? String, let mnemonics = row[1] as? [String],
                let secret = row[2] as? String, let xprv = row[3] as? String
            else { return nil }
            return Entry(description: description, mnemonics: mnemonics, secret: secret, xprv: xprv)
        }
    }()

    @Test("the vector file has all 45 entries")
    func count() { #expect(Self.entries.count == 45) }

    @Test("the wordlist is the upstream file, in order")
    func wordlist() throws {
        let upstream = try Vectors.text("slip39/wordlist.txt").split(whereSeparator: \.isNewline).map(String.init)
        #expect(SLIP39.wordlist == upstream)
    }

    @Test("shares → master secret (passphrase TREZOR) → BIP32 root, or rejected", arguments: entries)
    func vector(entry: Entry) throws {
        let restore = { () throws -> SecretBytes in
            let shares = try entry.mnemonics.enumerated().map { try SLIP39Share(words: $1, number: $0 + 1) }
            return try SLIP39.combine(shares, passphrase: SecretBytes(utf8: "TREZOR"))
        }
        if entry.secret.isEmpty {
            #expect(throws: SLIP39Error.self) { _ = try restore() }
        } else {
            let secret = try restore()
            #expect(TestHex.string(secret.unsafeCopyToArray()) == entry.secret)
            #expect(try ExtendedPrivateKey(seed: secret).base58String == entry.xprv)
        }
    }

    @Test("every well-formed share of the vectors re-encodes to the same words", arguments: entries)
    func reencode(entry: Entry) throws {
        for words in entry.mnemonics {
            guard let share = try? SLIP39Share(words: words) else { continue }  // the malformed ones are above
            #expect(String(decoding: share.words().unsafeCopyToArray(), as: UTF8.self) == words)
        }
    }

    @Test("the rejections name what is wrong")
    func rejections() throws {
        let byName = Dictionary(uniqueKeysWithValues: Self.entries.map { ($0.description, $0.mnemonics) })
        let checksum = try #require(byName["2. Mnemonic with invalid checksum (128 bits)"])
        #expect(throws: SLIP39Error.invalidChecksum(share: 1)) { try SLIP39Share(words: checksum[0]) }
        let padding = try #require(byName["3. Mnemonic with invalid padding (128 bits)"])
        #expect(throws: SLIP39Error.invalidPadding(share: 1)) { try SLIP39Share(words: padding[0]) }
        let short = try #require(byName["39. Mnemonic with insufficient length"])
        #expect(throws: SLIP39Error.invalidLength(words: 19)) { try SLIP39Share(words: short[0]) }
        let identifiers = try #require(byName["6. Mnemonics with different identifiers (128 bits)"])
        #expect(throws: SLIP39Error.mismatchedShares) {
            try SLIP39.combine(identifiers.map { try SLIP39Share(words: $0) }, passphrase: SecretBytes(utf8: ""))
        }
        let digest = try #require(byName["13. Mnemonics giving an invalid digest (128 bits)"])
        #expect(throws: SLIP39Error.invalidDigest) {
            try SLIP39.combine(digest.map { try SLIP39Share(words: $0) }, passphrase: SecretBytes(utf8: ""))
        }
        #expect(throws: SLIP39Error.unknownWord(share: 2, number: 1)) { try SLIP39Share(words: "bitcoin", number: 2) }
    }

    @Test(
        "split then combine gives the secret back, from any threshold of shares",
        arguments: [16, 32, 64])
    func splitAndCombine(length: Int) throws {
        let secret = SecretBytes(copying: SecureRandom.bytes(length))
        let passphrase = SecretBytes(utf8: "correct horse")
        let groups = try SLIP39.split(
            masterSecret: secret, passphrase: passphrase, groupThreshold: 2,
            groups: [.init(threshold: 1, count: 1), .init(threshold: 2, count: 3), .init(threshold: 3, count: 5)],
            iterationExponent: 0)
        #expect(groups.map(\.count) == [1, 3, 5])
        // Every pair of groups, with a different choice of members each time.
        let choices: [[SLIP39Share]] = [
            groups[0] + [groups[1][0], groups[1][2]],
            [groups[1][1], groups[1][2]] + [groups[2][0], groups[2][3], groups[2][4]],
            groups[0] + [groups[2][4], groups[2][1], groups[2][2]],
        ]
        for chosen in choices {
            let words = chosen.map { String(decoding: $0.words().unsafeCopyToArray(), as: UTF8.self) }
            let read = try words.map { try SLIP39Share(words: $0) }
            #expect(try SLIP39.combine(read, passphrase: passphrase) == secret)
            #expect(try SLIP39.combine(read, passphrase: SecretBytes(utf8: "wrong")) != secret)
        }
        // One member short in a group, or a single group: refused.
        #expect(throws: SLIP39Error.wrongShareCount(group: 1, required: 2, given: 1)) {
            try SLIP39.combine(groups[0] + [groups[1][0]], passphrase: passphrase)
        }
        #expect(throws: SLIP39Error.insufficientGroups(required: 2, given: 1)) {
            try SLIP39.combine([groups[1][0], groups[1][1]], passphrase: passphrase)
        }
    }

    @Test("split refuses parameters SLIP-39 does not allow")
    func splitParameters() {
        let secret = SecretBytes(copying: [UInt8](repeating: 7, count: 16))
        let empty = SecretBytes(utf8: "")
        #expect(throws: SLIP39Error.self) {
            try SLIP39.split(
                masterSecret: secret, passphrase: empty, groupThreshold: 2, groups: [.init(threshold: 1, count: 1)])
        }
        #expect(throws: SLIP39Error.self) {
            try SLIP39.split(
                masterSecret: secret, passphrase: empty, groupThreshold: 1, groups: [.init(threshold: 1, count: 2)])
        }
        #expect(throws: SLIP39Error.self) {
            try SLIP39.split(
                masterSecret: SecretBytes(copying: [UInt8](repeating: 7, count: 15)), passphrase: empty,
                groupThreshold: 1, groups: [.init(threshold: 1, count: 1)])
        }
    }
}

/// The encrypted master secret a vault keeps: recovered from shares, split again, decrypted.
@Suite("SLIP-39 encrypted master secret")
struct SLIP39EncryptedSecretTests {
    @Test("recover then decrypt is combine, for every valid vector; split again keeps identifier and secret")
    func recoverSplitDecrypt() throws {
        let passphrase = SecretBytes(utf8: "TREZOR")
        var checked = 0
        for entry in SLIP39Tests.entries where !entry.secret.isEmpty {
            let shares = try entry.mnemonics.map { try SLIP39Share(words: $0) }
            let encrypted = try SLIP39.recover(shares)
            #expect(TestHex.string(encrypted.masterSecret(passphrase: passphrase).unsafeCopyToArray()) == entry.secret)
            let again = try SLIP39.split(
                encrypted, groupThreshold: 2, groups: [.init(threshold: 2, count: 3), .init(threshold: 1, count: 1)])
            #expect(again.flatMap { $0 }.allSatisfy { $0.identifier == shares[0].identifier })
            let combined = try SLIP39.combine([again[1][0], again[0][2], again[0][0]], passphrase: passphrase)
            #expect(TestHex.string(combined.unsafeCopyToArray()) == entry.secret)
            checked += 1
        }
        #expect(checked == 15)
    }

    @Test("consistentGroups refuses a share of another group threshold or a second share for one index")
    func consistency() throws {
        let secret = SecretBytes(copying: [UInt8](repeating: 1, count: 16))
        let empty = SecretBytes(utf8: "")
        let a = try SLIP39.split(
            masterSecret: secret, passphrase: empty, groupThreshold: 1, groups: [.init(threshold: 2, count: 3)],
            iterationExponent: 0)
        let b = try SLIP39.split(
            SLIP39.recover([a[0][0], a[0][1]]), groupThreshold: 1, groups: [.init(threshold: 2, count: 3)])
        // Control: a share given twice counts once.
        #expect(try SLIP39.consistentGroups([a[0][0], a[0][0], a[0][1]])[0]?.count == 2)
        // Same backup, another split: member 1 of `b` differs from member 1 of `a`.
        #expect(throws: SLIP39Error.duplicateMemberIndex(group: 0, member: 0)) {
            try SLIP39.consistentGroups([a[0][0], b[0][0]])
        }
        let c = try SLIP39.split(
            SLIP39.recover([a[0][0], a[0][1]]), groupThreshold: 1, groups: [.init(threshold: 3, count: 3)])
        #expect(throws: SLIP39Error.mismatchedMemberThreshold(group: 0)) {
            try SLIP39.consistentGroups([a[0][0], c[0][1]])
        }
    }
}
