import BitcoinCrypto
import TestSupport
import Testing

@testable import Bitcoin

/// SLIP-132 version bytes: every version parses and re-encodes, keeps its key material, and converts to xpub/tpub.
@Suite("SLIP-132")
struct SLIP132Tests {
    @Test("every version round-trips and converts to the standard one", arguments: ExtendedKeyVersion.all)
    func roundTrip(version: ExtendedKeyVersion) throws {
        let master = try ExtendedPrivateKey(seed: SecretBytes(copying: Array(0..<32)), network: version.network)
        let account = try master.derive(DerivationPath(string: "m/84h/0h/0h"))
        if version.isPrivate {
            let key = try account.withVersion(version)
            let text = key.base58String
            #expect(text.hasPrefix(version.prefix))
            let parsed = try ExtendedPrivateKey(base58: text)
            #expect(parsed.version == version)
            #expect(parsed.standardBase58String == account.base58String)
            #expect(parsed.extendedPublicKey.version == version.publicVersion)
        } else {
            let key = try account.extendedPublicKey.withVersion(version)
            let text = key.base58String
            #expect(text.hasPrefix(version.prefix))
            let parsed = try ExtendedPublicKey(base58: text)
            #expect(parsed.version == version)
            #expect(parsed.publicKey == account.publicKey)
            #expect(parsed.standardBase58String == account.extendedPublicKey.base58String)
        }
    }

    @Test("each version's prefix, network and hint are consistent")
    func table() throws {
        #expect(ExtendedKeyVersion.all.count == 20)
        #expect(Set(ExtendedKeyVersion.all.map(\.rawValue)).count == 20)
        #expect(try ExtendedKeyVersion(rawValue: 0x04B2_4746).prefix == "zpub")
        #expect(try ExtendedKeyVersion(rawValue: 0x045F_1CF6).network == .test)
        #expect(ExtendedKeyVersion(network: .regtest, isPrivate: false).prefix == "tpub")
        #expect(throws: BIP32Error.unknownVersion(0x0102_0304)) { _ = try ExtendedKeyVersion(rawValue: 0x0102_0304) }
    }
}
