import Bitcoin
import BitcoinCrypto
import Foundation
import SeedBackup
import Testing

@testable import Signer

/// Cosigner names stored with a registered wallet (`multisig register --cosigner FP=NAME`, docs/signer.md): kept in
/// the authenticated header, read back, used in the policy words; a wallet without names (what older builds wrote)
/// still loads; a name removed or changed in the file is tampering.
@Suite("Cosigner names")
struct CosignerNamesTests {
    static let password = SecretBytes(utf8: "correct horse")

    /// The inheritance policy P1 with this vault (BIP39 vector 1, 73c5da0a) as C, three other seeds as A, B, D.
    static func inheritance() throws -> (descriptor: String, fingerprints: [String]) {
        let path = try DerivationPath(string: "m/48h/1h/0h/2h")
        let mine = try ExtendedPrivateKey(seed: Mnemonic(phrase: VaultTests.phrase).seed(), network: .regtest)
        var keys: [String] = []
        var fingerprints: [String] = []
        for byte: UInt8 in [0x11, 0x22, 0x33] {
            let other = try ExtendedPrivateKey(
                seed: SecretBytes(copying: [UInt8](repeating: byte, count: 32)), network: .regtest)
            keys.append("[\(other.fingerprint)/48h/1h/0h/2h]\(try other.derive(path).extendedPublicKey.base58String)")
            fingerprints.append(other.fingerprint.hexString)
        }
        let me = "[\(mine.fingerprint)/48h/1h/0h/2h]\(try mine.derive(path).extendedPublicKey.base58String)"
        keys.insert(me, at: 2)
        fingerprints.insert(mine.fingerprint.hexString, at: 2)
        let r = keys.map { $0 + "/<0;1>/*" }
        return ("wsh(or_d(multi(2,\(r[0]),\(r[1]),\(r[2])),and_v(v:pk(\(r[3])),older(10))))", fingerprints)
    }

    @Test("names registered are stored in the vault file, read back, and name the keys in the policy words")
    func storedAndLoaded() throws {
        let (vault, _) = try VaultTests.makeVault()
        let (descriptor, fp) = try Self.inheritance()
        let names = try [
            MultisigWallet.CosignerName(fingerprint: fp[0], name: "Alice"),
            MultisigWallet.CosignerName(fingerprint: fp[1].uppercased(), name: "  Bob "),
            MultisigWallet.CosignerName(fingerprint: fp[3], name: "Dad"),
        ]
        let wallet = try MultisigWallet(name: "heirs", descriptor: descriptor, cosignerNames: names)
        #expect(wallet.cosignerNames.map(\.name) == ["Alice", "Bob", "Dad"])
        #expect(wallet.cosignerNames[1].fingerprint == fp[1])
        #expect(wallet.miniscriptPolicy == "2 of Alice, Bob, key \(fp[2]); or Dad after 10 blocks (about 100 minutes)")
        let unlocked = try vault.unlock(password: Self.password)
        _ = try unlocked.register(wallet)
        let text = try String(contentsOfFile: vault.path, encoding: .utf8)
        #expect(text.contains("\"cosigners\"") && text.contains("\"Alice\""))
        let reopened = try vault.unlock(password: Self.password)
        let loaded = try #require(reopened.header.multisigWallets.first)
        #expect(loaded == wallet)
        #expect(loaded.cosignerName(fingerprint: fp[3]) == "Dad" && loaded.cosignerName(fingerprint: fp[2]) == nil)
        let policy = try MultisigPolicy(loaded, master: reopened.masterKey(), network: .regtest)
        #expect(
            policy.text.contains("policy: 2 of Alice, Bob, this vault (\(fp[2])); or Dad after 10 blocks"),
            "\(policy.text)")
        #expect(policy.cosigners.map(\.name) == ["Alice", "Bob", nil, "Dad"])
    }

    @Test("a wallet without names (an older build's record) loads, and its header encoding is the old one")
    func oldRecordWithoutNames() throws {
        let (vault, _) = try VaultTests.makeVault()
        let (descriptor, fp) = try Self.inheritance()
        let plain = try MultisigWallet(name: "heirs", descriptor: descriptor)
        _ = try vault.unlock(password: Self.password).register(plain)
        let text = try String(contentsOfFile: vault.path, encoding: .utf8)
        #expect(!text.contains("cosigners"))
        let loaded = try #require(try vault.unlock(password: Self.password).header.multisigWallets.first)
        #expect(loaded.cosignerNames.isEmpty && loaded == plain)
        #expect(loaded.miniscriptPolicy?.hasPrefix("2 of key \(fp[0]), key \(fp[1])") == true)
        // The associated data of a header without names ends where the version 2 encoding always ended (the
        // audit head); names add a tail, so the two encodings differ.
        var header = try vault.readHeader()
        let old = header.associatedData()
        #expect(Array(old.suffix(32)) == (header.auditHead ?? .empty).hash)
        header.multisigWallets = [
            try MultisigWallet(
                name: "heirs", descriptor: descriptor,
                cosignerNames: [.init(fingerprint: fp[0], name: "Alice")])
        ]
        let named = header.associatedData()
        #expect(Array(named.prefix(old.count)) == old && named.count > old.count)
    }

    @Test("a name changed or removed in the file is tampering; the file as written opens (control)")
    func tampered() throws {
        for edit in [("\"Alice\"", "\"Alicia\""), ("\"fingerprint\"", "\"fingerprint_\"")] {
            let (vault, _) = try VaultTests.makeVault()
            let (descriptor, fp) = try Self.inheritance()
            let wallet = try MultisigWallet(
                name: "heirs", descriptor: descriptor, cosignerNames: [.init(fingerprint: fp[0], name: "Alice")])
            _ = try vault.unlock(password: Self.password).register(wallet)
            _ = try vault.unlock(password: Self.password)
            let text = try String(contentsOfFile: vault.path, encoding: .utf8)
            #expect(text.contains(edit.0))
            try text.replacingOccurrences(of: edit.0, with: edit.1).write(
                toFile: vault.path, atomically: true, encoding: .utf8)
            #expect {
                try vault.unlock(password: Self.password)
            } throws: { error in
                switch error as? VaultError {
                case .tampered?: edit.0 == "\"Alice\""
                case .corrupt?: edit.0 == "\"fingerprint\""
                default: false
                }
            }
        }
        // Removing the whole list leaves a record without names: the header no longer matches (tampered).
        let (vault, _) = try VaultTests.makeVault()
        let (descriptor, fp) = try Self.inheritance()
        _ = try vault.unlock(password: Self.password).register(
            try MultisigWallet(
                name: "heirs", descriptor: descriptor, cosignerNames: [.init(fingerprint: fp[0], name: "Alice")]))
        var file = try VaultFile(serialized: Array(try Data(contentsOf: URL(fileURLWithPath: vault.path))))
        file.header.multisigWallets = [try MultisigWallet(name: "heirs", descriptor: descriptor)]
        try Data(file.serialized()).write(to: URL(fileURLWithPath: vault.path))
        #expect(throws: VaultError.tampered) { try vault.unlock(password: Self.password) }
    }

    @Test("a fingerprint not in the descriptor, a repeated one, or a bad name is refused (control: a good one)")
    func refused() throws {
        let (descriptor, fp) = try Self.inheritance()
        #expect(throws: MultisigError.unknownCosigner("deadbeef")) {
            try MultisigWallet(
                name: "heirs", descriptor: descriptor, cosignerNames: [.init(fingerprint: "deadbeef", name: "Eve")])
        }
        #expect(throws: MultisigError.unknownCosigner(fp[0] + " (twice)")) {
            try MultisigWallet(
                name: "heirs", descriptor: descriptor,
                cosignerNames: [.init(fingerprint: fp[0], name: "A"), .init(fingerprint: fp[0], name: "B")])
        }
        for bad in ["", "   ", String(repeating: "x", count: 33), "Al\u{1B}[2Jice", "Al\u{202E}ice", "A\nB"] {
            #expect(throws: MultisigError.invalidCosignerName(bad)) {
                try MultisigWallet.CosignerName(fingerprint: fp[0], name: bad)
            }
        }
        #expect(throws: MultisigError.unknownCosigner("xyz")) {
            try MultisigWallet.CosignerName(fingerprint: "xyz", name: "A")
        }
        let good = try MultisigWallet.CosignerName(fingerprint: fp[0], name: String(repeating: "x", count: 32))
        #expect(
            try MultisigWallet(name: "heirs", descriptor: descriptor, cosignerNames: [good]).cosignerNames == [good])
    }
}
