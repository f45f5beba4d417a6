import BitcoinCrypto
import SeedBackup
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// BIP49, BIP84 and BIP86 test vectors (Tests/Vectors/bip32/bip49_bip84_bip86_vectors.json): mnemonic → root → account
/// → keys, scripts and addresses.
///
/// Every field of every group is checked; an unknown field fails the test.
@Suite("BIP49/BIP84/BIP86")
struct BIP44FamilyTests {
    static func groups(_ bip: String) -> [(comment: String?, fields: [String: String])] {
        let file = (try? Vectors.anyJSON("bip32/bip49_bip84_bip86_vectors.json")) as? [String: Any]
        let bips = file?["bips"] as? [String: Any]
        let list = bips?[bip] as? [[String: Any]] ?? []
        return list.map { ($0["comment"] as? String, $0["fields"] as? [String: String] ?? [:]) }
    }

    /// Mnemonic fields first (they make the root the others are checked against), then by name.
    static func order(_ name: String) -> String { (name == "mnemonic" || name == "masterseedWords" ? "0" : "1") + name }

    static func hex(_ text: String) -> [UInt8] {
        TestHex.bytes(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text)
    }

    @Test("every group of the BIP's vectors", arguments: ["49", "84", "86"])
    func vectors(bip: String) throws {
        let groups = Self.groups(bip)
        #expect(groups.count == 5)
        let network: Network = bip == "49" ? .test : .main
        var root: ExtendedPrivateKey?
        var current: ExtendedPrivateKey?
        var publicKey: [UInt8] = []
        var lastPath: DerivationPath?
        var checked = 0
        for (comment, fields) in groups {
            // The path in the comment ("… = m/84'/0'/0'/0/1") is derived from the root.
            if let comment, let range = comment.range(of: "m/") {
                let path = try DerivationPath(string: String(comment[range.lowerBound...]))
                current = try #require(root).derive(path)
                lastPath = path
            }
            for (name, value) in fields.sorted(by: { Self.order($0.key) < Self.order($1.key) })
            where !name.hasSuffix("_network") {
                checked += 1
                switch name {
                case "masterseedWords", "mnemonic":
                    let seed = try Mnemonic(phrase: value).seed()
                    root = try ExtendedPrivateKey(seed: seed, network: network)
                case "masterseed", "rootpriv":
                    let parsed = try ExtendedPrivateKey(base58: value)
                    #expect(parsed.standardBase58String == root?.base58String)
                    #expect(try root?.withVersion(parsed.version).base58String == value)
                case "rootpub":
                    let parsed = try ExtendedPublicKey(base58: value)
                    #expect(parsed.standardBase58String == root?.extendedPublicKey.base58String)
                case "account0Xpriv", "xpriv", "xprv":
                    let parsed = try ExtendedPrivateKey(base58: value)
                    #expect(try current?.withVersion(parsed.version).base58String == value)
                case "account0Xpub", "xpub":
                    let parsed = try ExtendedPublicKey(base58: value)
                    #expect(try current?.extendedPublicKey.withVersion(parsed.version).base58String == value)
                case "account0recvPrivateKey", "privkey":
                    let wif = try WIF(base58: value)
                    #expect(wif.privateKey.secret == current?.privateKey.secret)
                    #expect(wif.network == network && wif.isCompressed)
                case "account0recvPrivateKeyHex":
                    #expect(current?.privateKey.secret.unsafeCopyToArray() == Self.hex(value))
                case "account0recvPublicKeyHex", "pubkey":
                    publicKey = Self.hex(value)
                    #expect(current?.publicKey.compressed == publicKey)
                case "keyhash":
                    #expect(Hash160.hash(publicKey) == Self.hex(value))
                case "scriptSig":
                    #expect(Script.p2wpkh(PubkeyHash(try PublicKey(serialized: publicKey))).bytes == Self.hex(value))
                case "addressBytes":
                    let redeem = Script.p2wpkh(PubkeyHash(try PublicKey(serialized: publicKey)))
                    #expect(Hash160.hash(redeem.bytes) == Self.hex(value))
                case "internal_key":
                    #expect(current?.publicKey.xOnly.key.bytes == Self.hex(value))
                case "output_key":
                    #expect(
                        try current?.publicKey.xOnly.key.taprootOutputKey(merkleRoot: nil).key.bytes == Self.hex(value))
                case "scriptPubKey", "address":
                    // The account descriptor with both branches gives the same script at (branch, index).
                    let steps = try #require(lastPath).components
                    try #require(steps.count == 5)
                    let account = try #require(root).derive(DerivationPath(Array(steps.prefix(3))))
                    let xpub = account.extendedPublicKey.standardBase58String
                    let text =
                        bip == "86"
                        ? "tr(\(xpub)/<0;1>/*)" : (bip == "84" ? "wpkh(\(xpub)/<0;1>/*)" : "sh(wpkh(\(xpub)/<0;1>/*))")
                    let descriptor = try Descriptor(string: text)
                    let (branch, index) = (Int(steps[3].rawValue), steps[4].rawValue)
                    if name == "scriptPubKey" {
                        #expect(try descriptor.scriptPubKey(at: index, path: branch).hexString == value)
                    } else {
                        #expect(try descriptor.address(at: index, path: branch, network: network).description == value)
                    }
                default:
                    if name.hasSuffix("_expression") { continue }
                    Issue.record("unhandled field \(name)")
                }
            }
        }
        #expect(checked > 5)
    }
}
