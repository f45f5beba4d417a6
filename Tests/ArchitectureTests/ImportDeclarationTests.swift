import Foundation
import TestSupport
import Testing

/// Every module a target under `Sources/` imports is declared in Package.swift (issue 28 item 7): SwiftPM lets a
/// target import a module it reaches only through another target, which hides an edge from the dependency rules.
@Suite("Imports are declared in Package.swift")
struct ImportDeclarationTests {
    /// Modules of the toolchain and the system: imported without a package dependency.
    static let system: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Darwin", "Dispatch",
        "Synchronization", "_Concurrency", "RegexBuilder", "Observation",
    ]

    /// The modules the Swift files under `path` import that `target` neither declares nor gets from the toolchain.
    static func undeclared(_ target: DependencyRuleTests.Description.Target) throws -> Set<String> {
        let declared = Set((target.targetDependencies ?? []) + (target.productDependencies ?? []))
        let imports = try DependencyRuleTests.imports(of: [target.path ?? "Sources/\(target.name)"])
        return imports.values.reduce(into: Set<String>()) { $0.formUnion($1) }.subtracting(declared).subtracting(
            system)
    }

    static func sourceTargets(of type: String) throws -> [DependencyRuleTests.Description.Target] {
        try DependencyRuleTests.describe().targets.filter { $0.type == type && $0.path?.hasPrefix("Sources/") == true }
    }

    @Test("each executable declares every module it imports")
    func executablesDeclareTheirImports() throws {
        let executables = try Self.sourceTargets(of: "executable")
        #expect(Set(executables.map(\.name)).isSuperset(of: ["airlock-signer", "airlock-watcher", "airlock-bench"]))
        for target in executables {
            let missing = try Self.undeclared(target)
            #expect(missing.isEmpty, "\(target.name) imports \(missing.sorted()) but Package.swift does not declare it")
        }
    }

    @Test("each library under Sources declares every module it imports")
    func librariesDeclareTheirImports() throws {
        let libraries = try Self.sourceTargets(of: "library")
        #expect(libraries.contains { $0.name == "Signer" } && libraries.contains { $0.name == "ChainBackends" })
        for target in libraries {
            let missing = try Self.undeclared(target)
            #expect(missing.isEmpty, "\(target.name) imports \(missing.sorted()) but Package.swift does not declare it")
        }
    }

    @Test("an import that Package.swift does not declare is found")
    func undeclaredImportIsFound() throws {
        // The signer's real sources against a declaration without Signer: the check names Signer.
        let signer = DependencyRuleTests.Description.Target(
            name: "airlock-signer", targetDependencies: ["Bitcoin", "BitcoinCrypto", "Ethereum", "CLISupport"],
            productDependencies: ["ArgumentParser"], type: "executable", path: "Sources/airlock-signer")
        #expect(try Self.undeclared(signer).contains("Signer"))
        // Control: with Signer and the rest declared as in Package.swift, nothing is missing.
        let declared = try Self.sourceTargets(of: "executable").first { $0.name == "airlock-signer" }
        let full = try #require(declared)
        #expect(try Self.undeclared(full).isEmpty)
        #expect(!(full.targetDependencies ?? []).isEmpty)
    }

    @Test("the import scan reads attributes, access levels and kinds")
    func importPatternForms() throws {
        let pattern = try Regex(DependencyRuleTests.importPattern)
        let text = """
            import Foundation
            @testable import ChainBackends
            @_spi(Testing) public import NIOCore
            package import struct NIOSOCKS.SOCKSProxy
            // import Commented
            let text = "not an import Quoted"
            """
        let found = Set(text.matches(of: pattern).compactMap { $0.output[3].substring.map(String.init) })
        #expect(found == ["Foundation", "ChainBackends", "NIOCore", "NIOSOCKS"])
    }
}
