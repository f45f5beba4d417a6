import Bitcoin
import BitcoinCrypto
import Ethereum
import Testing

@testable import Signer

/// `key import`'s reading of a key (`KeyImportReader`): each format's rule with its bad case and a control.
@Suite("Key import reader")
struct KeyImportReaderTests {
    static let hex = String(repeating: "11", count: 32)
    static func key() throws -> PrivateKey {
        try PrivateKey(secret: SecretBytes(copying: [UInt8](repeating: 0x11, count: 32)))
    }
    static func never() throws -> SecretBytes { throw KeyImportError.empty }

    static func read(_ text: String, chain: ImportedKey.Chain?) throws -> KeyImportReader.Candidate {
        try KeyImportReader.read(SecretBytes(utf8: text), chain: chain, label: "l", keystorePassword: never)
    }

    @Test("a WIF for testnet is refused by a mainnet vault; the same key's mainnet WIF is taken, compression kept")
    func wifNetwork() throws {
        let key = try Self.key()
        let testnet = WIF(privateKey: key, isCompressed: false, network: .test).base58String
        #expect(throws: KeyImportError.wrongNetwork(key: .test, vault: .main)) {
            try Self.read(testnet, chain: nil).key(for: .main)
        }
        let regtestVault = try Self.read(testnet, chain: nil).key(for: .regtest)
        #expect(regtestVault.chain == .bitcoin && !regtestVault.compressed)
        let main = try Self.read(" " + WIF(privateKey: key, network: .main).base58String + "\n", chain: .bitcoin)
        let sealed = try main.key(for: .main)
        #expect(sealed.compressed && sealed.chain == .bitcoin)
    }

    @Test("a WIF named as eth is refused; a keystore named as btc is refused before any password is asked")
    func chainMismatch() throws {
        let wif = WIF(privateKey: try Self.key(), network: .main).base58String
        #expect(throws: KeyImportError.wifIsBitcoin) { try Self.read(wif, chain: .ethereum) }
        #expect(throws: KeyImportError.keystoreIsEthereum) { try Self.read("{\"version\": 3}", chain: .bitcoin) }
        // Control: without --chain, a keystore asks for its password (here: the closure throws, so it was asked).
        #expect(throws: KeyImportError.empty) { try Self.read("{\"version\": 3}", chain: nil) }
    }

    @Test("64 hex digits need a chain; with one they are taken (0x allowed); zero is not a key")
    func hexKey() throws {
        #expect(throws: KeyImportError.hexNeedsChain) { try Self.read(Self.hex, chain: nil) }
        let eth = try Self.read("0x" + Self.hex, chain: .ethereum).key(for: .main)
        let expected = try Self.key().ethereumAddress
        #expect(eth.chain == .ethereum && eth.ethereumAddress == expected)
        #expect(throws: KeyImportError.invalidHexKey) {
            try Self.read(String(repeating: "0", count: 64), chain: .bitcoin)
        }
        #expect(throws: KeyImportError.unrecognized) { try Self.read(Self.hex + "1", chain: .bitcoin) }
        #expect(throws: KeyImportError.empty) { try Self.read(" \n\t", chain: .bitcoin) }
    }
}
