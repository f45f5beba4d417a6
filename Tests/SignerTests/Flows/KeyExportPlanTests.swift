import Bitcoin
import BitcoinCrypto
import Ethereum
import Testing

@testable import Signer

/// `key export`'s choices (`KeyExportPlan`).
///
/// The secret shown only when asked, the default paths, an imported key
/// found by address. Each with its bad case and a control.
@Suite("Key export plan")
struct KeyExportPlanTests {
    static func unlocked() throws -> UnlockedVault {
        let (vault, _) = try VaultTests.makeVault()
        return try vault.unlock(password: SecretBytes(utf8: "correct horse"))
    }

    @Test("WIF or hex without --show-secret is refused; a keystore needs no such flag, and WIF with it passes")
    func showSecret() throws {
        #expect(throws: KeyExportError.secretNotRequested) { try KeyExportPlan.check(.wif, showSecret: false) }
        #expect(throws: KeyExportError.secretNotRequested) { try KeyExportPlan.check(.hex, showSecret: false) }
        try KeyExportPlan.check(.keystore, showSecret: false)
        try KeyExportPlan.check(.wif, showSecret: true)
    }

    @Test("the default paths: m/84'/1'/0'/0/N on regtest, m/44'/60'/0'/0/N for Ethereum; a bad --path is named")
    func defaultPaths() throws {
        let vault = try Self.unlocked()
        let btc = try KeyExportPlan(
            vault: vault, chain: .bitcoin, address: nil, path: nil, index: 3, master: { try vault.masterKey() })
        #expect(btc.path == "m/84'/1'/0'/0/3")
        let account = try AccountKey(master: vault.masterKey(), script: .wpkh, account: 0, network: .regtest)
        #expect(btc.address == (try account.address(change: false, index: 3)).description)
        let eth = try KeyExportPlan(
            vault: vault, chain: .ethereum, address: nil, path: nil, index: nil, master: { try vault.masterKey() })
        #expect(eth.path == "m/44'/60'/0'/0/0")
        // MetaMask's first account of "abandon … about".
        #expect(eth.address == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        #expect(eth.secret(.hex).hasPrefix("0x") && eth.secret(.hex).count == 66)
        #expect(throws: KeyExportError.invalidPath("m/x")) {
            try KeyExportPlan(
                vault: vault, chain: .bitcoin, address: nil, path: "m/x", index: nil, master: { try vault.masterKey() })
        }
    }

    @Test("an address no imported key has is refused without asking for the seed; an imported key is found in any case")
    func importedByAddress() throws {
        let vault = try Self.unlocked()
        let key = try PrivateKey(secret: SecretBytes(copying: [UInt8](repeating: 0x22, count: 32)))
        let address = key.ethereumAddress.checksummed
        #expect(throws: KeyExportError.noImportedKey(chain: .ethereum, address: address)) {
            try KeyExportPlan(
                vault: vault, chain: .ethereum, address: address, path: nil, index: nil,
                master: { throw KeyExportError.secretNotRequested })
        }
        try vault.importKey(ImportedKey(chain: .ethereum, key: key, label: "hot"))
        let reopened = try Vault(path: vault.vault.path).unlock(password: SecretBytes(utf8: "correct horse"))
        let plan = try KeyExportPlan(
            vault: reopened, chain: .ethereum, address: address.lowercased(), path: nil, index: nil,
            master: { throw KeyExportError.secretNotRequested })
        #expect(plan.path == nil && plan.label == "hot" && plan.address == address)
        #expect(plan.review(destination: "d").text.contains("key: imported 'hot'"))
        // The same address as a Bitcoin key is not found: the chain must match.
        #expect(throws: KeyExportError.self) {
            try KeyExportPlan(
                vault: reopened, chain: .bitcoin, address: address, path: nil, index: nil,
                master: { throw KeyExportError.secretNotRequested })
        }
    }
}
