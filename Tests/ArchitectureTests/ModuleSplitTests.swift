import Foundation
import TestSupport
import Testing

/// The modules split out of `Bitcoin` (issue 28 item 6, docs/architecture.md section 1) sit above it: `Bitcoin` holds
/// primitives and PSBT and depends on none of them; the signer may use every one of them, and none reaches networking.
///
/// The same for the modules split out of `Signer` and `Watcher`; and no module is over `maximumLines`.
@Suite("Modules split from Bitcoin, Signer and Watcher (docs/architecture.md section 1)")
struct ModuleSplitTests {
    /// Descriptors and miniscript, seed backups, message signing, the Chance text.
    static let split: Set<String> = ["Descriptors", "SeedBackup", "MessageSigning", "Chance"]

    /// The modules split from `Signer` and `Watcher`, each with the module it sits on.
    static let splitAbove: [String: String] = [
        "EthereumSigner": "Signer", "SignerReports": "Signer", "WatcherFlows": "Watcher", "WatcherEthereum": "Watcher",
    ]

    /// The most lines a module may hold: "no module over about 6k lines" (issue 28 item 6).
    ///
    /// Every line of every Swift file under `Sources/<module>` counts, blank lines and comments included (`wc -l`). A
    /// module that grows past it is split along a line a newcomer would expect (docs/architecture.md section 1), not
    /// let through by raising this.
    static let maximumLines = 6000

    /// The lines of the Swift files under `Sources/<module>`, for every directory under `Sources/`.
    static func moduleSizes() throws -> [String: Int] {
        let sources = Vectors.packageRoot.appendingPathComponent("Sources")
        var sizes: [String: Int] = [:]
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let dir = sources.appendingPathComponent(module)
            guard let files = FileManager.default.enumerator(atPath: dir.path) else { continue }
            var count = 0
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                count += text.utf8.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            }
            sizes[module] = count
        }
        return sizes
    }

    /// The modules of `sizes` over `limit`, sorted.
    static func oversized(_ sizes: [String: Int], limit: Int = maximumLines) -> [String] {
        sizes.filter { $0.value > limit }.keys.sorted()
    }

    @Test("no module under Sources is over 6,000 lines")
    func noModuleIsOverTheLimit() throws {
        let sizes = try Self.moduleSizes()
        // The scan read the files: the modules that were split are still large, the new ones are there.
        for module in ["Signer", "Watcher", "Bitcoin", "EthereumSigner", "WatcherFlows", "WatcherEthereum", "AirGap"] {
            #expect((sizes[module] ?? 0) > 300, "\(module): \(sizes[module] ?? 0) lines")
        }
        let over = Self.oversized(sizes)
        #expect(over.isEmpty, "over \(Self.maximumLines) lines: \(over.map { "\($0) \(sizes[$0] ?? 0)" })")
    }

    @Test("the size check names a module one line over the limit and passes one at it")
    func sizeCheckFindsAnOversizedModule() {
        let limit = Self.maximumLines
        #expect(Self.oversized(["Big": limit + 1, "AtLimit": limit, "Small": 10]) == ["Big"])
        // Control: at the limit and below, nothing is named.
        #expect(Self.oversized(["AtLimit": limit, "Small": 10]).isEmpty)
    }

    @Test("the modules split from Signer and Watcher sit above them, and the signer side stays offline")
    func signerAndWatcherSplitsFollowTheGraph() throws {
        let description = try DependencyRuleTests.describe()
        for (module, base) in Self.splitAbove {
            #expect(DependencyRuleTests.closure(of: module, in: description).contains(base), "\(module) on \(base)")
            // No cycle: the base does not reach what was split from it.
            #expect(
                !DependencyRuleTests.closure(of: base, in: description).contains(module), "\(base) reaches \(module)")
        }
        // The signer-side modules are under the signer's rule: they reach nothing forbidden.
        let signer = DependencyRuleTests.closure(of: "airlock-signer", in: description)
        #expect(signer.isSuperset(of: ["Signer", "SignerReports", "EthereumSigner", "AirGap"]))
        for module in ["Signer", "SignerReports", "EthereumSigner", "AirGap"] {
            let reach = DependencyRuleTests.closure(of: module, in: description)
            let reached = reach.filter(DependencyRuleTests.isForbidden).sorted()
            #expect(reached.isEmpty, "\(module) reaches \(reached)")
        }
        // The watcher's new modules are online: the signer links neither, and the watcher links both.
        #expect(signer.isDisjoint(with: ["WatcherFlows", "WatcherEthereum"]))
        let watcher = DependencyRuleTests.closure(of: "airlock-watcher", in: description)
        #expect(watcher.isSuperset(of: ["Watcher", "WatcherFlows", "WatcherEthereum"]))
    }

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
