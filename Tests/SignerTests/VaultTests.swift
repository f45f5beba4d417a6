import Bitcoin
import BitcoinCrypto
import Foundation
import SeedBackup
import TestSupport
import Testing

@testable import Signer

/// The vault file of docs/architecture.md section 3 (format in docs/formats.md).
///
/// Argon2id runs at the 64 MiB floor to stay fast.
@Suite("Vault")
struct VaultTests {
    static let kdf = Argon2Parameters(memoryBytes: 64 << 20, iterations: 1)
    /// BIP39 test vector 1 (all zero entropy), trezor/python-mnemonic vectors.json.
    static let phrase = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "airlock-vault-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func makeVault(passphrase: String? = nil, store: Bool = false) throws -> (Vault, String) {
        let dir = try temporaryDirectory()
        let vault = Vault(path: dir + "/vault.airlock")
        try vault.create(
            mnemonic: Mnemonic(phrase: phrase), passphrase: passphrase.map { SecretBytes(utf8: $0) },
            storePassphrase: store, network: .regtest, password: SecretBytes(utf8: "correct horse"), kdf: kdf)
        return (vault, dir)
    }

    @Test("round trip: the unlocked vault gives the same mnemonic and the master fingerprint of BIP39 vector 1")
    func roundTrip() throws {
        let (vault, _) = try Self.makeVault()
        let unlocked = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        #expect(unlocked.mnemonic?.phrase == SecretBytes(utf8: Self.phrase))
        // m of "abandon … about" without passphrase: fingerprint 73c5da0a (BIP84 test vector).
        #expect(unlocked.header.masterFingerprint.hexString == "73c5da0a")
        #expect(try unlocked.masterKey().fingerprint.hexString == "73c5da0a")
        #expect(unlocked.network == .regtest)
        #expect(try vault.readHeader() == unlocked.header)
    }

    @Test("the file is mode 0600, holds neither the words nor the entropy, and no temporary file is left")
    func modeAndNoPlaintext() throws {
        let (vault, dir) = try Self.makeVault()
        let attributes = try FileManager.default.attributesOfItem(atPath: vault.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // The empty journal head is 32 zero bytes too; it is not the entropy, so it is left out of the search.
        let text = try String(contentsOfFile: vault.path, encoding: .utf8).replacingOccurrences(
            of: "\"head\" : \"\(AuditEntry.genesisHash.hexString)\"", with: "")
        #expect(!text.contains("abandon"))
        #expect(!text.contains(String(repeating: "00", count: 16)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["vault.airlock"])
    }

    @Test("a wrong password is reported as such")
    func wrongPassword() throws {
        let (vault, _) = try Self.makeVault()
        #expect(throws: VaultError.wrongPassword) { try vault.unlock(password: SecretBytes(utf8: "wrong")) }
    }

    @Test(
        "a changed header field with the right password is tampering",
        arguments: [
            ("\"network\" : \"regtest\"", "\"network\" : \"test\""),
            ("\"passphrase_stored\" : false", "\"passphrase_stored\" : true"),
            ("\"master_fingerprint\" : \"73c5da0a\"", "\"master_fingerprint\" : \"73c5da0b\""),
        ])
    func tamperedHeader(original: String, replacement: String) throws {
        let (vault, _) = try Self.makeVault()
        let text = try String(contentsOfFile: vault.path, encoding: .utf8)
        #expect(text.contains(original))
        try text.replacingOccurrences(of: original, with: replacement).write(
            toFile: vault.path, atomically: true, encoding: .utf8)
        #expect(throws: VaultError.tampered) { try vault.unlock(password: SecretBytes(utf8: "correct horse")) }
    }

    @Test("a flipped ciphertext byte is tampering")
    func tamperedCiphertext() throws {
        let (vault, _) = try Self.makeVault()
        var file = try VaultFile(serialized: Array(try Data(contentsOf: URL(fileURLWithPath: vault.path))))
        file.ciphertext[3] ^= 0x01
        try Data(file.serialized()).write(to: URL(fileURLWithPath: vault.path))
        #expect(throws: VaultError.tampered) { try vault.unlock(password: SecretBytes(utf8: "correct horse")) }
    }

    @Test(
        "an unparseable or incomplete file is corrupt, not a password error",
        arguments: ["not json", "{}", "{\"format\": \"airlock-vault\", \"version\": 1}", "[1, 2]"])
    func corrupt(content: String) throws {
        let (vault, _) = try Self.makeVault()
        try content.write(toFile: vault.path, atomically: true, encoding: .utf8)
        #expect {
            try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        } throws: { error in
            if case .corrupt = error as? VaultError { return true }
            return false
        }
    }

    @Test("a header field named twice is corrupt (strict JSON), whichever copy a reader would keep; the control opens")
    func duplicateField() throws {
        let (vault, _) = try Self.makeVault()
        let text = try String(contentsOfFile: vault.path, encoding: .utf8)
        #expect(text.contains("\"network\" : \"regtest\""))
        for doubled in [
            "\"network\" : \"main\",\n  \"network\" : \"regtest\"",
            "\"network\" : \"regtest\",\n  \"network\" : \"main\"",
        ] {
            try text.replacingOccurrences(of: "\"network\" : \"regtest\"", with: doubled).write(
                toFile: vault.path, atomically: true, encoding: .utf8)
            #expect {
                try vault.readHeader()
            } throws: { error in
                guard case .corrupt(let reason) = error as? VaultError else { return false }
                return reason.contains("network") && reason.contains("twice")
            }
        }
        try text.write(toFile: vault.path, atomically: true, encoding: .utf8)
        _ = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
    }

    @Test("added tokens are kept in the authenticated header: a changed decimals is tampering")
    func tokensAuthenticated() throws {
        let (vault, _) = try Self.makeVault()
        let unlocked = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        let token = try EthereumToken(
            chainID: 1, address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", symbol: "ATT", decimals: 6)
        try unlocked.addToken(token)
        let reopened = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        #expect(reopened.tokens == [token])
        #expect(throws: VaultError.duplicateToken(token.address.checksummed, chainID: 1)) {
            try reopened.addToken(token)
        }
        let text = try String(contentsOfFile: vault.path, encoding: .utf8)
        try text.replacingOccurrences(of: "\"decimals\" : 6", with: "\"decimals\" : 18").write(
            toFile: vault.path, atomically: true, encoding: .utf8)
        #expect(throws: VaultError.tampered) { try vault.unlock(password: SecretBytes(utf8: "correct horse")) }
        try text.write(toFile: vault.path, atomically: true, encoding: .utf8)
        #expect(
            try vault.unlock(password: SecretBytes(utf8: "correct horse")).removeToken(
                address: token.address, chainID: nil) == [token])
    }

    @Test("clear-signing descriptors are kept in the authenticated header: a changed one is tampering")
    func clearSigningAuthenticated() throws {
        let (vault, _) = try Self.makeVault()
        let unlocked = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        let document = #"{"$schema":"erc7730-v2.schema.json","metadata":{"owner":"Owner"}}"#
        try unlocked.setClearSigningDescriptors([document])
        #expect(try vault.unlock(password: SecretBytes(utf8: "correct horse")).clearSigningDescriptors == [document])
        let text = try String(contentsOfFile: vault.path, encoding: .utf8)
        try text.replacingOccurrences(of: "Owner", with: "Evil!").write(
            toFile: vault.path, atomically: true, encoding: .utf8)
        #expect(throws: VaultError.tampered) { try vault.unlock(password: SecretBytes(utf8: "correct horse")) }
        try text.write(toFile: vault.path, atomically: true, encoding: .utf8)
        let restored = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        #expect(restored.clearSigningDescriptors == [document])
        try restored.setClearSigningDescriptors([])
        #expect(try vault.unlock(password: SecretBytes(utf8: "correct horse")).clearSigningDescriptors.isEmpty)
    }

    @Test("a newer format version is refused by name")
    func newerVersion() throws {
        let (vault, _) = try Self.makeVault()
        let text = try String(contentsOfFile: vault.path, encoding: .utf8)
        #expect(text.contains("\"version\" : 2"))
        try text.replacingOccurrences(of: "\"version\" : 2", with: "\"version\" : 7").write(
            toFile: vault.path, atomically: true, encoding: .utf8)
        #expect(throws: VaultError.unsupportedVersion(7)) { try vault.readHeader() }
    }

    @Test("an existing vault is not overwritten unless asked")
    func refuseOverwrite() throws {
        let (vault, _) = try Self.makeVault()
        let before = try Data(contentsOf: URL(fileURLWithPath: vault.path))
        #expect(throws: VaultError.alreadyExists(path: vault.path)) {
            try vault.create(
                mnemonic: Mnemonic.generate(wordCount: 12), passphrase: nil, storePassphrase: false, network: .main,
                password: SecretBytes(utf8: "x"), kdf: Self.kdf)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: vault.path)) == before)
        try vault.create(
            mnemonic: Mnemonic.generate(wordCount: 12), passphrase: nil, storePassphrase: false, network: .main,
            password: SecretBytes(utf8: "x"), kdf: Self.kdf, overwrite: true)
        #expect(try vault.readHeader().network == .main)
    }

    @Test("KDF memory below 64 MiB is refused and nothing is written")
    func kdfFloor() throws {
        let dir = try Self.temporaryDirectory()
        #expect(throws: VaultError.invalidKDFParameters(memoryMiB: 32, passes: 3)) {
            try Vault(path: dir + "/v").create(
                mnemonic: Mnemonic(phrase: Self.phrase), passphrase: nil, storePassphrase: false, network: .main,
                password: SecretBytes(utf8: "x"), kdf: Argon2Parameters(memoryBytes: 32 << 20, iterations: 3))
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/v"))
    }

    @Test("passwd: the new password opens the vault, the old one no longer does")
    func changePassword() throws {
        let (vault, _) = try Self.makeVault()
        let unlocked = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        try unlocked.changePassword(to: SecretBytes(utf8: "battery staple"))
        #expect(throws: VaultError.wrongPassword) { try vault.unlock(password: SecretBytes(utf8: "correct horse")) }
        let again = try vault.unlock(password: SecretBytes(utf8: "battery staple"))
        #expect(again.mnemonic?.phrase == SecretBytes(utf8: Self.phrase))
    }

    @Test("a BIP39 passphrase that is not stored must be given, and a wrong one is named")
    func passphraseNotStored() throws {
        let (vault, _) = try Self.makeVault(passphrase: "TREZOR")
        let unlocked = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        #expect(unlocked.storedPassphrase == nil)
        #expect(unlocked.needsPassphrase)
        let right = try unlocked.masterKey(passphrase: SecretBytes(utf8: "TREZOR"))
        #expect(right.fingerprint == unlocked.header.masterFingerprint)
        #expect {
            try unlocked.masterKey(passphrase: SecretBytes(utf8: "trezor"))
        } throws: { error in
            if case .wrongPassphrase = error as? VaultError { return true }
            return false
        }
    }

    @Test("a stored BIP39 passphrase comes back from the sealed payload")
    func passphraseStored() throws {
        let (vault, _) = try Self.makeVault(passphrase: "TREZOR", store: true)
        let unlocked = try vault.unlock(password: SecretBytes(utf8: "correct horse"))
        #expect(unlocked.storedPassphrase == SecretBytes(utf8: "TREZOR"))
        #expect(!unlocked.needsPassphrase)
        #expect(try unlocked.masterKey().fingerprint == unlocked.header.masterFingerprint)
    }

    @Test("atomic write: a target is replaced whole, and link mode refuses an existing file")
    func atomicFile() throws {
        let dir = try Self.temporaryDirectory()
        let path = dir + "/f"
        try AtomicFile.write(Array("one".utf8), to: path, overwrite: false)
        #expect(throws: VaultError.alreadyExists(path: path)) {
            try AtomicFile.write(Array("two".utf8), to: path, overwrite: false)
        }
        try AtomicFile.write(Array("three".utf8), to: path, overwrite: true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "three")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["f"])
    }

    // MARK: SLIP-39 vaults

    /// SLIP-39 vector 4 of trezor/python-shamir-mnemonic vectors.json (Tests/Vectors/slip39), "Basic sharing 2-of-3
    /// (128 bits)", passphrase TREZOR: its shares and master secret.
    static func slip39Vector() throws -> (shares: [String], secret: String) {
        let rows = try #require(Vectors.anyJSON("slip39/vectors.json") as? [[Any]])
        let row = try #require(rows.first { ($0[0] as? String)?.hasPrefix("4. ") == true })
        return (try #require(row[1] as? [String]), try #require(row[2] as? String))
    }

    @Test("a SLIP-39 vault seals the encrypted master secret; the passphrase gives the seed, a wrong one is named")
    func slip39Vault() throws {
        let vector = try Self.slip39Vector()
        let shares = try vector.shares.map { try SLIP39Share(words: $0) }
        let encrypted = try SLIP39.recover(shares)
        let dir = try Self.temporaryDirectory()
        let vault = Vault(path: dir + "/vault.airlock")
        let password = SecretBytes(utf8: "correct horse")
        try vault.create(
            secret: .slip39(encrypted), passphrase: SecretBytes(utf8: "TREZOR"), storePassphrase: false,
            network: .main, password: password, kdf: Self.kdf)
        let unlocked = try vault.unlock(password: password)
        #expect(unlocked.mnemonic == nil)
        #expect(unlocked.needsPassphrase)
        let seed = try unlocked.seed(passphrase: SecretBytes(utf8: "TREZOR"))
        #expect(TestHex.string(seed.unsafeCopyToArray()) == vector.secret)
        let restored = try #require(unlocked.secret.slip39)
        #expect(restored.identifier == encrypted.identifier && restored.value == encrypted.value)
        #expect(
            restored.iterationExponent == encrypted.iterationExponent && restored.extendable == encrypted.extendable)
        #expect(throws: VaultError.self) { try unlocked.seed(passphrase: SecretBytes(utf8: "")) }
        // Shares split again from the sealed secret restore the same master secret with the same passphrase.
        let again = try SLIP39.split(restored, groupThreshold: 1, groups: [.init(threshold: 3, count: 4)])
        let combined = try SLIP39.combine(Array(again[0][1...]), passphrase: SecretBytes(utf8: "TREZOR"))
        #expect(combined == seed)
        #expect(again[0][0].identifier == shares[0].identifier)
        // The file holds neither the master secret nor the encrypted one.
        let text = try String(contentsOfFile: vault.path, encoding: .utf8)
        #expect(!text.contains(vector.secret))
        #expect(!text.contains(TestHex.string(encrypted.value.unsafeCopyToArray())))
    }

    @Test("a SLIP-39 payload with parameters out of range is corrupt, and the control decodes")
    func slip39PayloadBounds() throws {
        let good: [UInt8] = [2, 1, 1, 0x12, 0x34, 16] + [UInt8](repeating: 9, count: 16) + [0, 0]
        let decoded = try VaultPayload.decode(SecretBytes(copying: good))
        #expect(decoded.secret.slip39?.identifier == 0x1234 && decoded.passphrase == nil)
        var badExponent = good
        badExponent[2] = 16
        var oddLength = [UInt8](good[0..<5]) + [15] + [UInt8](repeating: 9, count: 15) + [0, 0]
        #expect(throws: VaultError.self) { try VaultPayload.decode(SecretBytes(copying: badExponent)) }
        #expect(throws: VaultError.self) { try VaultPayload.decode(SecretBytes(copying: oddLength)) }
        oddLength[0] = 5
        #expect(throws: VaultError.self) { try VaultPayload.decode(SecretBytes(copying: oddLength)) }
    }
}

/// The sealed payload with imported keys (layouts 3 and 4) and without (layouts 1 and 2, what older builds wrote and
/// read).
@Suite("Vault payload")
struct VaultPayloadTests {
    static let entropy = SecretBytes(copying: [UInt8](repeating: 0, count: 16))

    @Test("without imported keys the payload keeps layout 1, byte for byte what older builds wrote")
    func layoutOne() throws {
        let payload = VaultPayload.encode(entropy: Self.entropy, passphrase: nil)
        #expect(payload.unsafeCopyToArray() == [1, 16] + [UInt8](repeating: 0, count: 16) + [0, 0])
        let (secret, passphrase, keys) = try VaultPayload.decode(payload)
        #expect(secret.mnemonic?.entropy == Self.entropy && passphrase == nil && keys.isEmpty)
    }

    @Test("imported keys round-trip in layout 3 with chain, compression and label")
    func layoutThree() throws {
        let eth = try PrivateKey(secret: SecretBytes(copying: [UInt8](repeating: 0x11, count: 32)))
        let btc = try PrivateKey(secret: SecretBytes(copying: [UInt8](repeating: 0x22, count: 32)))
        let payload = VaultPayload.encode(
            entropy: Self.entropy, passphrase: SecretBytes(utf8: "pass"),
            importedKeys: [
                ImportedKey(chain: .ethereum, key: eth, label: "hot ✓"),
                ImportedKey(chain: .bitcoin, key: btc, compressed: false, label: ""),
            ])
        #expect(payload.unsafeCopyToArray().first == 3)
        let (secret, passphrase, keys) = try VaultPayload.decode(payload)
        #expect(secret.mnemonic?.entropy == Self.entropy)
        #expect(passphrase == SecretBytes(utf8: "pass"))
        #expect(keys.map(\.chain) == [.ethereum, .bitcoin] && keys.map(\.label) == ["hot ✓", ""])
        #expect(keys[0].key.secret == eth.secret && keys[1].key.secret == btc.secret)
        #expect(keys.map(\.compressed) == [true, false])
        // Attack: a truncated or extended payload is corrupt, not half-read.
        let bytes = payload.unsafeCopyToArray()
        for bad in [Array(bytes.dropLast()), bytes + [0]] {
            #expect(throws: VaultError.self) { try VaultPayload.decode(SecretBytes(copying: bad)) }
        }
    }

    @Test("a SLIP-39 vault with imported keys is layout 4 and keeps its SLIP-39 parameters")
    func layoutFour() throws {
        let encrypted = SLIP39.EncryptedMasterSecret(
            value: SecretBytes(copying: [UInt8](repeating: 7, count: 16)), identifier: 0x0ABC, extendable: true,
            iterationExponent: 2)
        let eth = try PrivateKey(secret: SecretBytes(copying: [UInt8](repeating: 0x33, count: 32)))
        let withKeys = VaultPayload.encode(
            .slip39(encrypted), passphrase: nil, importedKeys: [ImportedKey(chain: .ethereum, key: eth, label: "a")])
        #expect(withKeys.unsafeCopyToArray().first == 4)
        let (secret, passphrase, keys) = try VaultPayload.decode(withKeys)
        let restored = try #require(secret.slip39)
        #expect(restored.value == encrypted.value && restored.identifier == 0x0ABC)
        #expect(restored.extendable && restored.iterationExponent == 2 && passphrase == nil)
        #expect(keys.count == 1 && keys[0].key.secret == eth.secret)
        // Control: the same secret without keys stays at layout 2.
        let without = VaultPayload.encode(.slip39(encrypted), passphrase: nil)
        #expect(without.unsafeCopyToArray().first == 2)
        #expect(try VaultPayload.decode(without).importedKeys.isEmpty)
    }
}
