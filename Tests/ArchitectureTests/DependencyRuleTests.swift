import Foundation
import TestSupport
import Testing

/// The offline/online line of docs/architecture.md section 1 and rule R8, checked from the package graph itself.
@Suite("Dependency rule (docs/architecture.md section 1)")
struct DependencyRuleTests {
    /// Modules, products and packages the signer must never reach, directly or transitively: the online side's
    /// modules, SQLite and every networking product (with `isForbidden`, any other NIO product too).
    static let forbidden: Set<String> = [
        "ChainCore", "ChainBackends", "Watcher", "WatcherFlows", "WatcherEthereum", "WatcherWeb",
        "FoundationNetworking",
        "NIO", "NIOCore", "NIOPosix", "NIOSSL", "NIOHTTP1", "NIOSOCKS", "NIOEmbedded", "NIOExtras", "NIOTLS",
        "NIOFoundationCompat", "NIOConcurrencyHelpers", "AsyncHTTPClient", "GRDB", "GRDBSQLite",
    ]

    /// Whether the signer may not reach `name`: a name of `forbidden`, or any product or module of swift-nio and its
    /// companion packages (all named `NIO…`, their internals `_NIO…`).
    static func isForbidden(_ name: String) -> Bool {
        forbidden.contains(name) || name.hasPrefix("NIO") || name.hasPrefix("_NIO")
    }

    /// The package description of `swift package describe --type json`, decoded.
    struct Description: Decodable {
        struct Target: Decodable {
            let name: String
            let targetDependencies: [String]?
            let productDependencies: [String]?
            /// "executable", "library", "test", "system-target" ...
            var type: String? = nil
            /// The target's directory, from the package root.
            var path: String? = nil

            enum CodingKeys: String, CodingKey {
                case name, type, path
                case targetDependencies = "target_dependencies"
                case productDependencies = "product_dependencies"
            }
        }
        let targets: [Target]
    }

    static func describe() throws -> Description {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("airlock-describe-\(ProcessInfo.processInfo.processIdentifier)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // A scratch path of its own, so this does not wait on the lock that `swift test` holds on .build.
        process.arguments = [
            "swift", "package", "--package-path", Vectors.packageRoot.path,
            "--scratch-path", scratch.path, "describe", "--type", "json",
        ]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try JSONDecoder().decode(Description.self, from: data)
    }

    /// Every target and product name reachable from `root`.
    static func closure(of root: String, in description: Description) -> Set<String> {
        let byName = Dictionary(description.targets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var seen: Set<String> = []
        var stack = [root]
        while let name = stack.popLast() {
            guard seen.insert(name).inserted, let target = byName[name] else { continue }
            stack.append(contentsOf: target.targetDependencies ?? [])
            seen.formUnion(target.productDependencies ?? [])
        }
        return seen
    }

    @Test("airlock-signer reaches no networking module")
    func signerIsOffline() throws {
        let description = try Self.describe()
        let reach = Self.closure(of: "airlock-signer", in: description)
        #expect(reach.contains("Signer"), "the graph walk found the signer's own modules")
        #expect(reach.contains("ArgumentParser"), "the graph walk followed product dependencies")
        let reached = reach.filter(Self.isForbidden).sorted()
        #expect(reached.isEmpty, "signer reaches \(reached)")
    }

    @Test("the signer's forbidden set holds ChainCore, the online modules and every NIO product")
    func forbiddenSetIsComplete() throws {
        for name in [
            "ChainCore", "ChainBackends", "Watcher", "WatcherFlows", "WatcherEthereum", "WatcherWeb", "NIOSOCKS",
            "NIOHTTP1", "NIOSSL", "NIOCore", "NIOPosix",
        ] {
            #expect(Self.isForbidden(name), "\(name) is not forbidden to the signer")
        }
        // Every NIO product the package graph knows (ChainBackends' and the tests'), by the prefix rule.
        let description = try Self.describe()
        let products = Set(description.targets.flatMap { $0.productDependencies ?? [] })
        let nio = products.filter { $0.hasPrefix("NIO") }
        #expect(nio.count >= 5, "found the NIO products: \(nio.sorted())")
        #expect(nio.allSatisfy(Self.isForbidden))
        // Control: what the signer does use stays allowed.
        for name in [
            "Signer", "EthereumSigner", "AirGap", "Bitcoin", "BitcoinCrypto", "Ethereum", "CLISupport",
            "ArgumentParser",
            "CSecp256k1",
        ] {
            #expect(!Self.isForbidden(name), "\(name) must stay allowed")
        }
    }

    /// Networking modules and products: what `Watcher` and `ChainCore` must not reach (docs/architecture.md rule R8).
    static let networking: Set<String> = [
        "ChainBackends", "FoundationNetworking",
        "NIO", "NIOCore", "NIOPosix", "NIOSSL", "NIOHTTP1", "NIOFoundationCompat", "NIOEmbedded", "AsyncHTTPClient",
    ]

    @Test("Watcher, WatcherFlows and WatcherEthereum reach ChainCore but no networking module nor ChainBackends")
    func watcherIsWithoutNetworking() throws {
        let description = try Self.describe()
        for module in ["Watcher", "WatcherFlows", "WatcherEthereum"] {
            let reach = Self.closure(of: module, in: description)
            #expect(reach.contains("ChainCore"), "the graph walk found \(module)'s chain interface")
            #expect(reach.contains("GRDB"), "the graph walk followed product dependencies")
            #expect(reach.isDisjoint(with: Self.networking), "\(module) reaches \(reach.intersection(Self.networking))")
        }
    }

    @Test("ChainCore reaches no networking module")
    func chainCoreIsWithoutNetworking() throws {
        let description = try Self.describe()
        let reach = Self.closure(of: "ChainCore", in: description)
        #expect(reach.contains("Bitcoin"))
        #expect(reach.isDisjoint(with: Self.networking), "ChainCore reaches \(reach.intersection(Self.networking))")
        // The control: the backends do reach NIO, so the same walk would see it if ChainCore did.
        let backends = Self.closure(of: "ChainBackends", in: description)
        #expect(backends.contains("NIOCore") && backends.contains("ChainCore"))
    }

    @Test("only airlock-watcher picks a backend: no other target depends on ChainBackends")
    func onlyTheExecutablePicksABackend() throws {
        let description = try Self.describe()
        let dependents = description.targets.filter { ($0.targetDependencies ?? []).contains("ChainBackends") }
            .map(\.name)
        // Besides the executable, only the backends' own tests, the fuzz harness (FuzzTargets) and its replay tests
        // (FuzzReplayTests: the leak checks of the Electrum target) link the backends.
        #expect(
            Set(dependents) == ["airlock-watcher", "ChainBackendsTests", "FuzzTargets", "FuzzReplayTests"],
            "ChainBackends used by \(dependents)")
    }

    @Test("the walk would catch a forbidden edge")
    func walkDetectsForbiddenEdge() throws {
        let description = try Self.describe()
        let watcherReach = Self.closure(of: "airlock-watcher", in: description)
        #expect(watcherReach.contains("CLISupport"))
        // A synthetic graph with one bad edge proves the walk is transitive.
        let synthetic = Description(targets: [
            .init(name: "airlock-signer", targetDependencies: ["Signer"], productDependencies: nil),
            .init(name: "Signer", targetDependencies: ["Helper"], productDependencies: nil),
            .init(name: "Helper", targetDependencies: [], productDependencies: ["NIOPosix"]),
        ])
        #expect(Self.closure(of: "airlock-signer", in: synthetic).contains(where: Self.isForbidden))
        // The same for an edge to ChainCore, and to a NIO product that is not named in `forbidden`.
        for bad in ["ChainCore", "NIOSOCKS", "NIOHTTP2"] {
            let edge = Description(targets: [
                .init(name: "airlock-signer", targetDependencies: ["Signer"], productDependencies: nil),
                .init(name: "Signer", targetDependencies: ["Helper"], productDependencies: nil),
                .init(name: "Helper", targetDependencies: [bad], productDependencies: [bad]),
            ])
            #expect(Self.closure(of: "airlock-signer", in: edge).contains(where: Self.isForbidden), "\(bad)")
        }
        // Control: the same graph without the bad edge is clean.
        let clean = Description(targets: [
            .init(name: "airlock-signer", targetDependencies: ["Signer"], productDependencies: ["ArgumentParser"]),
            .init(name: "Signer", targetDependencies: ["Bitcoin"], productDependencies: nil),
        ])
        #expect(!Self.closure(of: "airlock-signer", in: clean).contains(where: Self.isForbidden))
    }

    @Test("Watcher and ChainCore sources import no networking module")
    func walletSourcesImportNoNetworking() throws {
        let imports = try Self.imports(of: [
            "Watcher", "WatcherFlows", "WatcherEthereum", "ChainCore", "Tests/WatcherTests", "Tests/ChainCoreTests",
        ])
        #expect(imports.count > 20, "scanned the wallet's files")
        #expect(imports.values.contains { $0.contains("ChainCore") }, "the scan sees the ChainCore imports")
        for (file, modules) in imports {
            #expect(
                modules.isDisjoint(with: Self.networking), "\(file) imports \(modules.intersection(Self.networking))")
        }
    }

    /// An import line: attributes, an access level, a kind (`import struct Foundation.URL`), then the module (group 3).
    static let importPattern =
        #"(?m)^\s*(@\w+(?:\([^)\n]*\))?\s+)*((?:internal|public|package|private|fileprivate) )?import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let) )?(\w+)"#

    /// The modules each Swift file under `Sources/<module>` (or a path from the package root) imports.
    static func imports(of modules: [String]) throws -> [String: Set<String>] {
        let pattern = try Regex(importPattern)
        var result: [String: Set<String>] = [:]
        for module in modules {
            let dir = Vectors.packageRoot.appendingPathComponent(module.contains("/") ? module : "Sources/\(module)")
            guard let files = FileManager.default.enumerator(atPath: dir.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                result["\(module)/\(file)"] = Set(
                    text.matches(of: pattern).compactMap { $0.output[3].substring.map(String.init) })
            }
        }
        return result
    }

    @Test("offline sources import no networking module")
    func offlineSourcesImportNoNetworking() throws {
        let offline = [
            "Codecs", "BitcoinCrypto", "Bitcoin", "Descriptors", "SeedBackup", "MessageSigning", "Chance", "Ethereum",
            "AirgapTransport", "QRImage", "Signer", "SignerReports", "EthereumSigner", "AirGap", "CLISupport",
            "SignToContract", "airlock-signer",
        ]
        let pattern = try Regex(Self.importPattern)
        var scanned = 0
        for module in offline {
            let dir = Vectors.packageRoot.appendingPathComponent("Sources/\(module)")
            guard let files = FileManager.default.enumerator(atPath: dir.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                scanned += 1
                for match in text.matches(of: pattern) {
                    let imported = String(match.output[3].substring ?? "")
                    #expect(!Self.isForbidden(imported), "\(module)/\(file) imports \(imported)")
                }
            }
        }
        #expect(scanned > 0)
    }
}
