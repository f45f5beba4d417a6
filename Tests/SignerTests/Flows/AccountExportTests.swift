import Bitcoin
import BitcoinCrypto
import Foundation
import SeedBackup
import Testing

@testable import Signer

/// `export`'s choices (`AccountExport`): which scripts each format exports, and the texts.
@Suite("Account export")
struct AccountExportTests {
    static func master() throws -> ExtendedPrivateKey {
        try ExtendedPrivateKey(seed: Mnemonic(phrase: VaultTests.phrase).seed(), network: .main)
    }

    @Test("BSMS exports the wsh-multi key whatever else; a descriptor wpkh unless told; JSON and UR every script")
    func scripts() {
        #expect(AccountExport.scripts(.bsms, script: nil) == [.wshMulti])
        #expect(AccountExport.scripts(.descriptor, script: nil) == [.wpkh])
        #expect(AccountExport.scripts(.descriptor, script: .tr) == [.tr])
        #expect(AccountExport.scripts(.json, script: nil) == AccountScript.allCases)
        #expect(AccountExport.scripts(.ur, script: nil) == AccountScript.allCases)
    }

    @Test("the descriptor is BIP84's account of 'abandon … about'; the report names its first address")
    func descriptor() throws {
        let export = try AccountExport(
            master: Self.master(), format: .descriptor, script: nil, account: 0, network: .main)
        #expect(
            export.descriptorText.hasPrefix(
                "wpkh([73c5da0a/84h/0h/0h]xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V/<0;1>/*)"
            ))
        let json = String(
            decoding: try JSONEncoder().encode(export.report(format: .descriptor, data: "d")), as: UTF8.self)
        // BIP84's first receive address of that account.
        #expect(json.contains("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"))
    }

    @Test("the BSMS record is signed by the cosigner key and encrypted only under a token that encrypts")
    func bsms() throws {
        let export = try AccountExport(master: Self.master(), format: .bsms, script: nil, account: 0, network: .main)
        let plain = try export.bsmsRecord(token: nil)
        #expect(plain.hasPrefix("BSMS 1.0\n00\n[73c5da0a/48h/0h/0h/2h]"))
        let encrypted = try export.bsmsRecord(token: "a54044308ceac9b7")
        #expect(!encrypted.contains("BSMS") && encrypted.allSatisfy(\.isHexDigit))
        #expect(throws: (any Error).self) { try export.bsmsRecord(token: "zz") }
    }
}
