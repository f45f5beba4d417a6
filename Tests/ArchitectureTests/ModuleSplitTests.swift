import Foundation
import TestSupport
import Testing

/// The modules split out of `Bitcoin` (issue 28 item 6, docs/architecture.md section 1) sit above it: `Bitcoin` holds
/// primitives and PSBT and depends on none of them; the signer may use every one of them, and none reaches networking.
@Suite("Modules split from Bitcoin (docs/architecture.md section 1)")
struct ModuleSplitTests {
    /// Descriptors and miniscript, seed backups, message signing, the Chance text.
    static let split: Set<String> = ["Descriptors", "SeedBackup", "MessageSigning", "Chance"]

    @Test("Bitcoin depends on none of the modules split from it; they depend on Bitcoin")
    func bitcoinIsBelowTheSplitModules() throws {
        let description = try DependencyRuleTests.describe()
        let bitcoin = DependencyRuleTests.closure(of: "Bitcoin", in: description)
        #expect(bitcoin.contains("BitcoinCrypto"), "the walk follows Bitcoin's own dependency")
        #expect(bitcoin.isDisjoint(with: Self.split), "Bitcoin reaches \(bitcoin.intersection(Self.split))")
        // The control: each split module does reach Bitcoin, so the same walk sees an edge where there is one.
        for module in Self.split {
            #expect(DependencyRuleTests.closure(of: module, in: description).contains("Bitcoin"), "\(module)")
        }
    }

    @Test("the signer reaches every split module, and none of them reaches networking")
    func signerMayUseTheSplitModules() throws {
        let description = try DependencyRuleTests.describe()
        let signer = DependencyRuleTests.closure(of: "airlock-signer", in: description)
        #expect(Self.split.isSubset(of: signer), "signer lacks \(Self.split.subtracting(signer))")
        for module in Self.split {
            let reach = DependencyRuleTests.closure(of: module, in: description)
            #expect(
                reach.isDisjoint(with: DependencyRuleTests.forbidden),
                "\(module) reaches \(reach.intersection(DependencyRuleTests.forbidden))")
        }
    }

    @Test("Bitcoin's sources import no split module; the split modules' sources import no networking module")
    func importsFollowTheGraph() throws {
        let bitcoin = try DependencyRuleTests.imports(of: ["Bitcoin"])
        #expect(bitcoin.count > 50, "scanned Bitcoin's files")
        for (file, modules) in bitcoin {
            #expect(modules.isDisjoint(with: Self.split), "\(file) imports \(modules.intersection(Self.split))")
        }
        let split = try DependencyRuleTests.imports(of: Self.split.sorted())
        #expect(split.count > 40, "scanned the split modules' files")
        // The control: the scan sees the split modules' own import of Bitcoin.
        #expect(split.values.contains { $0.contains("Bitcoin") })
        for (file, modules) in split {
            #expect(
                modules.isDisjoint(with: DependencyRuleTests.forbidden),
                "\(file) imports \(modules.intersection(DependencyRuleTests.forbidden))")
        }
    }
}
