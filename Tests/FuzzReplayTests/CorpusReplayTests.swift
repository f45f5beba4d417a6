import Foundation
import FuzzTargets
import TestSupport
import Testing

/// Every committed fuzz corpus (`Fuzz/corpus/<Target>/`, crashers included) fed once through its target's entry point,
/// without libFuzzer or sanitizers: a crash found once stays found (docs/architecture.md section 9, docs/fuzzing.md).
@Suite("Fuzz corpus replay")
struct CorpusReplayTests {
    static let corpus = Vectors.packageRoot.appendingPathComponent("Fuzz/corpus")

    static func directories() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// The files of one corpus directory, recursively, sorted.
    static func files(of target: String) -> [URL] {
        let root = corpus.appendingPathComponent(target)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        return walker.compactMap { $0 as? URL }.filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }.sorted { $0.path < $1.path }
    }

    @Test("every fuzz target has a committed corpus, and every corpus a target")
    func corporaMatchTargets() throws {
        #expect(Set(try Self.directories()) == Set(FuzzTargets.all.keys))
    }

    @Test("each corpus replays through its target without a crash", arguments: FuzzTargets.all.keys.sorted())
    func replay(target: String) throws {
        let run = try #require(FuzzTargets.all[target])
        let files = Self.files(of: target)
        #expect(!files.isEmpty, "Fuzz/corpus/\(target) has seeds")
        for file in files { run(Array(try Data(contentsOf: file))) }
    }
}
