import Bitcoin
import Descriptors
import Testing

@testable import Watcher

/// Import forms against the BIP84 test vectors (mnemonic "abandon … about", account 0).
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0084.mediawiki#test-vectors
@Suite("Account import: descriptors, extended keys, JSON export")
struct AccountImportTests {
    static let xpub =
        "xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V"
    static let zpub =
        "zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs"
    static let firstReceive = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
    static let firstChange = "bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el"

    static func check(_ account: ImportedAccount) throws {
        let wallet = Account(external: account.external, change: account.change, network: account.network)
        #expect(try wallet.derive(.external, index: 0).address == Self.firstReceive)
        #expect(try wallet.derive(.internal, index: 0).address == Self.firstChange)
    }

    @Test("a multipath descriptor with checksum splits into receive and change")
    func multipath() throws {
        let text = try DescriptorChecksum.adding(to: "wpkh([73c5da0a/84h/0h/0h]\(Self.xpub)/<0;1>/*)")
        let account = try AccountImport.parse(text)
        #expect(account.network == .main && account.source == "descriptor")
        try Self.check(account)
    }

    @Test("two single-path descriptors, receive first")
    func twoLines() throws {
        let text = "wpkh([73c5da0a/84h/0h/0h]\(Self.xpub)/0/*)\nwpkh([73c5da0a/84h/0h/0h]\(Self.xpub)/1/*)\n"
        try Self.check(try AccountImport.parse(text))
    }

    @Test("a zpub with origin becomes wpkh")
    func slip132() throws {
        let account = try AccountImport.parse("[73c5da0a/84h/0h/0h]\(Self.zpub)")
        #expect(account.external.description.hasPrefix("wpkh("))
        try Self.check(account)
    }

    @Test("a Coldcard-style export: bip84 section by default")
    func export() throws {
        let json = """
            {"chain": "BTC", "xfp": "73C5DA0A", "bip84": {"name": "p2wpkh", "deriv": "m/84'/0'/0'", "xpub": "\(Self.xpub)"}}
            """
        let account = try AccountImport.parse(json)
        #expect(account.suggestedName == "bip84")
        try Self.check(account)
    }

    @Test("refusals: a bad checksum, private keys, wrong network, garbage, three branches")
    func refusals() throws {
        let good = try DescriptorChecksum.adding(to: "wpkh([73c5da0a/84h/0h/0h]\(Self.xpub)/<0;1>/*)")
        var bad = good
        bad.removeLast()
        bad += good.hasSuffix("q") ? "p" : "q"
        #expect(throws: ImportError.self) { try AccountImport.parse(bad) }
        #expect(throws: ImportError.privateKeys) {
            try AccountImport.parse(
                "wpkh(xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi/0/*)"
            )
        }
        #expect(throws: ImportError.self) { try AccountImport.parse(good, network: .regtest) }
        #expect(throws: ImportError.self) { try AccountImport.parse("hello") }
        #expect(throws: ImportError.empty) { try AccountImport.parse("  \n") }
        #expect(throws: ImportError.branchCount(3)) {
            try AccountImport.parse("wpkh([73c5da0a/84h/0h/0h]\(Self.xpub)/<0;1;2>/*)")
        }
    }
}

@Suite("BIP329 labels")
struct LabelTests {
    @Test("JSON Lines round trip, spendable kept, bad lines named")
    func roundTrip() throws {
        let txid = String(repeating: "ab", count: 32)
        let text = """
            {"type":"tx","ref":"\(txid)","label":"salary"}

            {"type":"output","ref":"\(txid):1","label":"cold","spendable":false}
            """
        let labels = try LabelsFile.parse(text)
        #expect(labels.count == 2 && labels[1].spendable == false)
        #expect(try LabelsFile.parse(LabelsFile.serialize(labels)) == [labels[1], labels[0]])  // sorted by type, ref
        #expect(throws: LabelError.invalid(line: 2, reason: "unknown type 'car'")) {
            try LabelsFile.parse(
                "{\"type\":\"tx\",\"ref\":\"\(txid)\",\"label\":\"a\"}\n{\"type\":\"car\",\"ref\":\"x\"}")
        }
        #expect(throws: LabelError.self) { try LabelsFile.parse("{\"type\":\"output\",\"ref\":\"\(txid)\"}") }
        #expect(throws: LabelError.self) { try LabelsFile.parse("not json") }
    }
}
