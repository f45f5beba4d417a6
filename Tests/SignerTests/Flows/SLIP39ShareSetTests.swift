import Bitcoin
import BitcoinCrypto
import SeedBackup
import TestSupport
import Testing

@testable import Signer

/// SLIP-39 restore rules.
///
/// Group completeness, what is missing, the shares chosen, and the layout text (`SLIP39ShareSet`,
/// `SLIP39Layout`). Each rule with its bad case and a control.
@Suite("SLIP-39 share set")
struct SLIP39ShareSetTests {
    /// Shares of a fresh 16-byte secret: two groups (2of3, 3of5), both needed, and the secret itself.
    static func twoGroups() throws -> (groups: [[SLIP39Share]], secret: SecretBytes) {
        let secret = SecretBytes(copying: Array(UInt8(1)...UInt8(16)))
        let groups = try SLIP39.split(
            masterSecret: secret, passphrase: SecretBytes(count: 0), groupThreshold: 2,
            groups: [.init(threshold: 2, count: 3), .init(threshold: 3, count: 5)])
        return (groups, secret)
    }

    @Test("a group with fewer than its threshold of shares is not complete; with its threshold it is")
    func groupCompleteness() throws {
        let (groups, secret) = try Self.twoGroups()
        var set = SLIP39ShareSet()
        try set.add(groups[0][0])
        try set.add(groups[1][0])
        try set.add(groups[1][1])
        #expect(!set.isComplete)
        #expect(set.completeGroups.isEmpty)
        #expect(set.missing == "0 of 2 groups complete; group 1 has 1 of 2 shares; group 2 has 2 of 3 shares")
        #expect(throws: SLIP39ShareError.notEnough(missing: set.missing)) { try set.selected() }
        try set.add(groups[0][2])
        #expect(set.completeGroups.keys.sorted() == [0])
        #expect(!set.isComplete)
        #expect(set.missing == "1 of 2 groups complete; group 2 has 2 of 3 shares")
        try set.add(groups[1][4])
        #expect(set.isComplete)
        #expect(try SLIP39.combine(set.selected(), passphrase: SecretBytes(count: 0)) == secret)
    }

    @Test("the same share twice counts once (reported as a duplicate); a distinct share of the group counts")
    func duplicateShare() throws {
        let (groups, _) = try Self.twoGroups()
        var set = SLIP39ShareSet()
        #expect(try set.add(groups[0][0]) == .added)
        #expect(try set.add(groups[0][0]) == .duplicate)
        #expect(set.shares.count == 1)
        #expect(set.completeGroups.isEmpty)
        #expect(try set.add(groups[0][1]) == .added)
        #expect(set.completeGroups.keys.sorted() == [0])
    }

    @Test("a share of another backup is refused with its number; a share of the same backup is taken")
    func otherBackup() throws {
        let (groups, _) = try Self.twoGroups()
        let (other, _) = try Self.twoGroups()  // a fresh identifier
        var set = SLIP39ShareSet()
        try set.add(groups[0][0])
        #expect(throws: SLIP39ShareError.invalid(.mismatchedShares, share: 2)) { try set.add(other[0][1]) }
        #expect(set.shares.count == 1)
        #expect(try set.add(groups[0][1]) == .added)
        #expect(
            SLIP39ShareError.invalid(.mismatchedShares, share: 2).description
                == "share 2: the shares do not belong to one backup (identifier or parameters differ)")
    }

    @Test("surplus shares in a file are left out: exactly the threshold, first groups first; the secret is restored")
    func selectsThreshold() throws {
        let (groups, secret) = try Self.twoGroups()
        let set = SLIP39ShareSet(groups[1] + groups[0])
        let chosen = try set.selected()
        #expect(chosen.count == 5)
        #expect(chosen.map(\.groupIndex) == [0, 0, 1, 1, 1])
        let recovered = try set.recover()
        let seed = try SLIP39.combine(chosen, passphrase: SecretBytes(count: 0))
        #expect(seed == secret)
        #expect(recovered.value.count == 16)
        // Control: one group short is refused, naming what is missing.
        #expect(throws: SLIP39ShareError.notEnough(missing: "1 of 2 groups complete")) {
            try SLIP39ShareSet(groups[1]).selected()
        }
    }

    @Test("layouts: 2of3 and 1of2:2of3,3of5 parse; a count mismatch, 1of3, 17 shares and 3of2 are refused")
    func layout() throws {
        let one = try SLIP39Layout(parsing: "2of3")
        #expect(one.groupThreshold == 1 && one.groups == [.init(threshold: 2, count: 3)])
        let two = try SLIP39Layout(parsing: "1of2:2of3,3of5")
        #expect(two.groupThreshold == 1 && two.groups.count == 2)
        #expect(throws: SLIP39Layout.Invalid.self) { try SLIP39Layout(parsing: "1of3:2of3,3of5") }
        #expect(throws: SLIP39Layout.Invalid.self) { try SLIP39Layout(parsing: "1of3") }
        #expect(throws: SLIP39Layout.Invalid.self) { try SLIP39Layout(parsing: "2of17") }
        #expect(throws: SLIP39Layout.Invalid.self) { try SLIP39Layout(parsing: "3of2") }
        #expect(throws: SLIP39Layout.Invalid.self) { try SLIP39Layout(parsing: "2of3:1of1:1of1") }
        #expect(try SLIP39Layout(parsing: "1of1").groups == [.init(threshold: 1, count: 1)])
    }
}

/// `backup slip39`'s split (`UnlockedVault.slip39Shares`): a SLIP-39 vault keeps its passphrase, a BIP39 vault's seed
/// is split under a new one.
@Suite("SLIP-39 split of a vault")
struct SLIP39SplitTests {
    static let password = SecretBytes(utf8: "correct horse")

    @Test("a new passphrase for a SLIP-39 vault is refused; without one its shares are the same backup")
    func slip39Vault() throws {
        let vector = try VaultTests.slip39Vector()
        let encrypted = try SLIP39.recover(vector.shares.map { try SLIP39Share(words: $0) })
        let vault = Vault(path: try VaultTests.temporaryDirectory() + "/vault.airlock")
        try vault.create(
            secret: .slip39(encrypted), passphrase: nil, storePassphrase: false, network: .main,
            password: Self.password, kdf: VaultTests.kdf)
        let unlocked = try vault.unlock(password: Self.password)
        let layout = try SLIP39Layout(parsing: "2of3")
        #expect(throws: SLIP39SplitError.passphraseOnSLIP39Vault) {
            try unlocked.slip39Shares(
                layout, iterationExponent: 1, seed: { SecretBytes(count: 64) },
                newPassphrase: { SecretBytes(utf8: "x") })
        }
        let shares = try unlocked.slip39Shares(
            layout, iterationExponent: 1, seed: { SecretBytes(count: 64) }, newPassphrase: nil)
        #expect(shares[0].count == 3 && shares[0][0].identifier == encrypted.identifier)
        let seed = try SLIP39.combine(Array(shares[0][1...]), passphrase: SecretBytes(utf8: "TREZOR"))
        #expect(TestHex.string(seed.unsafeCopyToArray()) == vector.secret)
    }

    @Test("a BIP39 vault's seed is split under the new passphrase and combines back to the seed; 1of3 is refused")
    func bip39Vault() throws {
        let (vault, _) = try VaultTests.makeVault()
        let unlocked = try vault.unlock(password: Self.password)
        let seed = try unlocked.seed()
        let shares = try unlocked.slip39Shares(
            SLIP39Layout(parsing: "1of2:2of3,3of5"), iterationExponent: 0, seed: { seed },
            newPassphrase: { SecretBytes(utf8: "new") })
        #expect(shares.map(\.count) == [3, 5])
        #expect(try SLIP39.combine(Array(shares[0].prefix(2)), passphrase: SecretBytes(utf8: "new")) == seed)
        #expect(try SLIP39.combine(Array(shares[0].prefix(2)), passphrase: SecretBytes(count: 0)) != seed)
        #expect(throws: SLIP39Layout.Invalid.self) { try SLIP39Layout(parsing: "1of3") }
    }
}
