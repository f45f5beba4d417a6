import Bitcoin
import BitcoinCrypto
import SeedBackup
import Testing

@testable import Signer

/// The Chance `multisig:` flow (`ChanceSignFlow`): read, reviewed with the vault's registered wallet, refused or
/// signed and journalled.
@Suite("Chance sign flow")
struct ChanceSignFlowTests {
    static let password = SecretBytes(utf8: "correct horse")

    /// A testnet vault of "abandon … about" with the Chance fixture's 2-of-3 wallet registered.
    static func vault(_ fixture: ChanceSigningSessionTests) throws -> UnlockedVault {
        let vault = Vault(path: try VaultTests.temporaryDirectory() + "/vault.airlock")
        try vault.create(
            mnemonic: Mnemonic(phrase: VaultTests.phrase), passphrase: nil, storePassphrase: false, network: .test,
            password: Self.password, kdf: VaultTests.kdf)
        _ = try vault.unlock(password: Self.password).register(fixture.wallet, passphrase: nil)
        return try vault.unlock(password: Self.password)
    }

    @Test("a text that is not a multisig: text is invalid input; the fixture's text reads")
    func read() throws {
        #expect(throws: ChanceSignError.self) { try ChanceSignFlow.read("multisig:garbage") }
        let fixture = try ChanceSigningSessionTests()
        let text = try fixture.spend().text
        #expect(try ChanceSignFlow.read(text.description) == text)
    }

    @Test("without the previous transaction signing is refused and nothing journalled; with it, signed and journalled")
    func signs() throws {
        let fixture = try ChanceSigningSessionTests()
        let unlocked = try Self.vault(fixture)
        let master = try unlocked.masterKey()
        let (text, previous) = try fixture.spend()
        let blind = try ChanceSignFlow(
            text, previous: [], vault: unlocked, master: master, policy: SigningPolicy(network: .main))
        #expect(throws: ChanceSignError.self) { try blind.sign(allowFlags: [], finalize: false) }
        #expect(try unlocked.auditLog.entries().isEmpty)
        let flow = try ChanceSignFlow(
            text, previous: [previous], vault: unlocked, master: master, policy: SigningPolicy(network: .main))
        let result = try flow.sign(allowFlags: [], finalize: true)
        #expect(result.signedInputs == [0] && result.positions.count == 1)
        // One of the two signatures: not complete, so no final transaction even with finalize.
        #expect(!result.text.isComplete && result.transaction == nil)
        #expect(try unlocked.auditLog.entries().count == 1)
    }

    @Test("a previous transaction no input spends is invalid input, not a refusal")
    func strayPrevious() throws {
        let fixture = try ChanceSigningSessionTests()
        let unlocked = try Self.vault(fixture)
        var (text, stray) = try fixture.spend()
        stray.lockTime = LockTime(rawValue: 7)
        #expect {
            try ChanceSignFlow(
                text, previous: [stray], vault: unlocked, master: try unlocked.masterKey(),
                policy: SigningPolicy(network: .main))
        } throws: { error in
            if case .invalid = error as? ChanceSignError { return true }
            return false
        }
        text = try fixture.spend().text
        #expect(!text.isComplete)
    }
}
