import Foundation
import TestSupport
import Testing

/// The offline/online line of docs/architecture.md section 1 and rule R8, checked from the package graph itself.
@Suite("Dependency rule (docs/architecture.md section 1)")
struct DependencyRuleTests {
    /// Modules, products and packages the signer must never reach, directly or transitively.
    static let forbidden: Set<String> = [
        "ChainBackends", "Watcher", "FoundationNetworking",
        "NIO", "NIOCore", "NIOPosix", "NIOSSL", "NIOHTTP1", "NIOFoundationCompat", "AsyncHTTPClient", "GRDB",
    ]

    /// The package description of `swift package describe --type json`, decoded.
    struct Description: Decodable {
        struct Target: Decodable {
            let name: String
            let targetDependencies: [String]?
            let productDependencies: [String]?

            enum CodingKeys: String, CodingKey {
                case name
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
        #expect(reach.isDisjoint(with: Self.forbidden), "signer reaches \(reach.intersection(Self.forbidden))")
    }

    /// Networking modules and products: what `Watcher` and `ChainCore` must not reach (docs/architecture.md rule R8).
    static let networking: Set<String> = [
        "ChainBackends", "FoundationNetworking",
        "NIO", "NIOCore", "NIOPosix", "NIOSSL", "NIOHTTP1", "NIOFoundationCompat", "NIOEmbedded", "AsyncHTTPClient",
    ]

    @Test("Watcher reaches ChainCore but no networking module nor ChainBackends")
    func watcherIsWithoutNetworking() throws {
        let description = try Self.describe()
        let reach = Self.closure(of: "Watcher", in: description)
        #expect(reach.contains("ChainCore"), "the graph walk found the wallet's chain interface")
        #expect(reach.contains("GRDB"), "the graph walk followed product dependencies")
        #expect(reach.isDisjoint(with: Self.networking), "Watcher reaches \(reach.intersection(Self.networking))")
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
        // Besides the executable, only the backends' own tests and the fuzz harness (FuzzTargets) link the backends.
        #expect(
            Set(dependents) == ["airlock-watcher", "ChainBackendsTests", "FuzzTargets"],
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
        #expect(!Self.closure(of: "airlock-signer", in: synthetic).isDisjoint(with: Self.forbidden))
    }

    @Test("Watcher and ChainCore sources import no networking module")
    func walletSourcesImportNoNetworking() throws {
        let imports = try Self.imports(of: ["Watcher", "ChainCore", "Tests/WatcherTests", "Tests/ChainCoreTests"])
        #expect(imports.count > 20, "scanned the wallet's files")
        #expect(imports.values.contains { $0.contains("ChainCore") }, "the scan sees the ChainCore imports")
        for (file, modules) in imports {
            #expect(
                modules.isDisjoint(with: Self.networking), "\(file) imports \(modules.intersection(Self.networking))")
        }
    }

    /// The modules each Swift file under `Sources/<module>` (or a path from the package root) imports.
    static func imports(of modules: [String]) throws -> [String: Set<String>] {
        let pattern = try Regex(#"(?m)^\s*(@\w+\s+)*(internal |public |package )?import\s+(\w+)"#)
        var result: [String: Set<String>] = [:]
        for module in modules {
            let dir = Vectors.packageRoot.appendingPathComponent(module.contains("/") ? module : "Sources/\(module)")
            guard let files = FileManager.default.enumerator(atPath: dir.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                result["\(module)/\(file)"] = Set(
                    text.matches(of: pattern).map { String($0.output[3].substring ?? "") })
            }
        }
        return result
    }

    @Test("offline sources import no networking module")
    func offlineSourcesImportNoNetworking() throws {
        let offline = [
            "BitcoinCrypto", "Bitcoin", "Ethereum", "AirgapTransport", "QRImage", "Signer", "CLISupport",
            "airlock-signer",
        ]
        let pattern = try Regex(#"(?m)^\s*(@\w+\s+)*(internal |public |package )?import\s+(\w+)"#)
        var scanned = 0
        for module in offline {
            let dir = Vectors.packageRoot.appendingPathComponent("Sources/\(module)")
            guard let files = FileManager.default.enumerator(atPath: dir.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                scanned += 1
                for match in text.matches(of: pattern) {
                    let imported = String(match.output[3].substring ?? "")
                    #expect(!Self.forbidden.contains(imported), "\(module)/\(file) imports \(imported)")
                }
            }
        }
        #expect(scanned > 0)
    }
}
