import Bitcoin
import BitcoinCrypto
import Foundation
import SeedBackup
import Testing

@testable import Signer

/// A registration's analysis (issue 26, class 6): this vault's keys found by origin fingerprint or by deriving its
/// standard multisig accounts; two of them refused; a stranger's lone leaf warned about, a plain 2-of-3 not.
@Suite("Registration paths and own keys")
struct RegistrationPathsTests {
    static func master() throws -> ExtendedPrivateKey {
        try ExtendedPrivateKey(seed: Mnemonic(phrase: VaultTests.phrase).seed(), network: .regtest)
    }

    /// `[fp/path]tpub…/<0;1>/*` of `root` at `path`, under `fingerprint` (default: the real one).
    static func key(_ root: ExtendedPrivateKey, _ path: String, fingerprint: String? = nil) throws -> String {
        let xpub = try root.derive(try DerivationPath(string: path)).extendedPublicKey.base58String
        return "[\(fingerprint ?? root.fingerprint.hexString)/\(path.dropFirst(2))]\(xpub)/<0;1>/*"
    }

    static func stranger(_ byte: UInt8) throws -> ExtendedPrivateKey {
        try ExtendedPrivateKey(seed: SecretBytes(copying: [UInt8](repeating: byte, count: 32)), network: .regtest)
    }

    static func policy(_ descriptor: String) throws -> MultisigPolicy {
        try MultisigPolicy(
            MultisigWallet(name: "w", descriptor: descriptor), master: master(), network: .regtest,
            registration: true)
    }

    @Test("two keys of this vault, by fingerprint or found by deriving, are refused; one is not")
    func ownKeys() throws {
        let me = try Self.master()
        let mine = try Self.key(me, "m/48h/1h/0h/2h")
        let other = try Self.key(Self.stranger(9), "m/48h/1h/0h/2h")
        let second = try Self.key(me, "m/48h/1h/1h/2h")
        let both = try Self.policy("wsh(sortedmulti(2,\(mine),\(second),\(other)))")
        #expect(both.ownKeyNumbers == [1, 2] && both.completesAlone)
        #expect(both.ownKeysRefusal?.contains("ONE SIGNER (this vault) COMPLETES THE SPEND") == true)
        for path in ["m/45h", "m/48h/1h/99h/1h", "m/87h/1h/42h"] {
            let disguised = try Self.key(me, path, fingerprint: "deadbeef")
            let policy = try Self.policy("wsh(sortedmulti(2,\(mine),\(disguised),\(other)))")
            #expect(policy.ownKeyNumbers.count == 2, "\(path)")
            #expect(policy.cosigners.contains { $0.foundAt != nil }, "\(path)")
        }
        // Not searched: account 100, and single-sig purposes.
        let far = try Self.key(me, "m/48h/1h/100h/2h", fingerprint: "deadbeef")
        #expect(try Self.policy("wsh(sortedmulti(2,\(mine),\(far),\(other)))").ownKeysRefusal == nil)
        // 3 of 4 with two own keys: this vault alone does not complete it, but is still refused.
        let fourth = try Self.key(Self.stranger(8), "m/48h/1h/0h/2h")
        let three = try Self.policy("wsh(sortedmulti(3,\(mine),\(second),\(other),\(fourth)))")
        #expect(!three.completesAlone && three.ownKeysRefusal?.contains("gives 2 of the signatures") == true)
        // Control: one key of this vault.
        let control = try Self.policy("wsh(sortedmulti(2,\(mine),\(other),\(fourth)))")
        #expect(control.ownKeysRefusal == nil && control.warnings.isEmpty)
        #expect(control.pathsWithoutThisVault.count == 1)
    }

    @Test("a taproot leaf a stranger spends alone is warned about; the same after a timelock is only named")
    func taprootLeaf() throws {
        let me = try Self.master()
        let mine = try Self.key(me, "m/48h/1h/0h/2h")
        let (b, c, s) = (
            try Self.key(Self.stranger(1), "m/48h/1h/0h/2h"), try Self.key(Self.stranger(2), "m/48h/1h/0h/2h"),
            try Self.stranger(3)
        )
        let sKey = try Self.key(s, "m/48h/1h/0h/2h")
        let h = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"
        let lone = try Self.policy("tr(\(h),{or_d(pk(\(sKey)),pk(\(mine))),multi_a(2,\(mine),\(b),\(c))})")
        #expect(lone.warnings.contains { $0.contains("key \(s.fingerprint.hexString) alone, at any time") })
        #expect(lone.text.contains("spending paths WITHOUT this vault:"))
        let heir = try Self.policy("tr(\(h),{and_v(v:pk(\(sKey)),older(10)),multi_a(2,\(mine),\(b),\(c))})")
        #expect(heir.warnings.isEmpty, "\(heir.warnings)")
        #expect(
            heir.pathsWithoutThisVault.first
                == "leaf 1: key \(s.fingerprint.hexString) alone after 10 blocks (about 100 minutes)")
    }
}
