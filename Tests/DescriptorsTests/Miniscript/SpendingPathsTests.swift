import BitcoinCrypto
import Testing

@testable import Bitcoin
@testable import Descriptors

/// Every spending path of a wallet without some keys (issue 26, class 6): wsh and tr alike, the key path and each
/// leaf; a lone key at any time is flagged, a lone key after a timelock is not, several keys are named together.
@Suite("Spending paths without own keys")
struct SpendingPathsTests {
    static let h = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"

    /// `[fp/48h/1h/0h/2h]tpub…/<0;1>/*` of a seed of `byte`s, and its fingerprint.
    static func key(_ byte: UInt8) throws -> (text: String, fingerprint: String) {
        let root = try ExtendedPrivateKey(
            seed: SecretBytes(copying: [UInt8](repeating: byte, count: 32)), network: .regtest)
        let xpub = try root.derive(try DerivationPath(string: "m/48h/1h/0h/2h")).extendedPublicKey.base58String
        return ("[\(root.fingerprint)/48h/1h/0h/2h]\(xpub)/<0;1>/*", root.fingerprint.hexString)
    }

    static func paths(_ text: String, own: String) throws -> [String] {
        let descriptor = try Descriptor(string: text)
        let keyPath = !text.hasPrefix("tr(\(h),")
        return SpendingPath.withoutOwnKeys(descriptor, keyPathSpendable: keyPath) {
            $0.origin?.fingerprint.hexString == own
        }.map { $0.words { "key \($0.origin?.fingerprint.hexString ?? "?")" } }
    }

    @Test("a taproot leaf a stranger spends alone, at any time or after a timelock")
    func taprootLeaves() throws {
        let (me, b, c, s) = (try Self.key(1), try Self.key(2), try Self.key(3), try Self.key(4))
        let lone = "tr(\(Self.h),{or_d(pk(\(s.text)),pk(\(me.text))),multi_a(2,\(me.text),\(b.text),\(c.text))})"
        let paths = try Self.paths(lone, own: me.fingerprint)
        #expect(paths.contains("leaf 1: key \(s.fingerprint) alone, at any time"), "\(paths)")
        #expect(paths.contains { $0.hasPrefix("leaf 2: ") && $0.hasSuffix(" together, at any time") }, "\(paths)")
        let heir = "tr(\(Self.h),{and_v(v:pk(\(s.text)),older(10)),multi_a(2,\(me.text),\(b.text),\(c.text))})"
        #expect(
            try Self.paths(heir, own: me.fingerprint).first
                == "leaf 1: key \(s.fingerprint) alone after 10 blocks (about 100 minutes)")
        // The key path of a spendable internal key is a path of its own.
        let keyPath = "tr(\(s.text),multi_a(2,\(me.text),\(b.text),\(c.text)))"
        #expect(
            try Self.paths(keyPath, own: me.fingerprint).first == "key path: key \(s.fingerprint) alone, at any time")
    }

    @Test("wsh: a lone stranger after a timelock, and a plain 2-of-3")
    func wsh() throws {
        let (me, b, c) = (try Self.key(1), try Self.key(2), try Self.key(3))
        let policy = "wsh(or_d(multi(2,\(me.text),\(b.text)),and_v(v:pk(\(c.text)),after(900000))))"
        #expect(
            try Self.paths(policy, own: me.fingerprint) == ["key \(c.fingerprint) alone after block 900,000"])
        let plain = try Self.paths("wsh(sortedmulti(2,\(me.text),\(b.text),\(c.text)))", own: me.fingerprint)
        #expect(plain.count == 1 && plain[0].hasSuffix("together, at any time"))
        // Every path needs this vault's key: none.
        #expect(try Self.paths("wsh(sortedmulti(3,\(me.text),\(b.text),\(c.text)))", own: me.fingerprint).isEmpty)
    }
}
