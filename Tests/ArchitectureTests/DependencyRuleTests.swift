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
