import Testing

@testable import CLISupport

@Suite("The --version line")
struct AirlockVersionTests {
    @Test("a recorded commit hash is named in the version line")
    func namesTheCommit() {
        let commit = "ee407ba87ed7a925b2f5da0a9f47aa6cb9dd5092"
        #expect(AirlockVersion.commit(from: commit) == commit)
        #expect(AirlockVersion.describe(number: "0.1.0", commit: commit) == "0.1.0 (commit \(commit))")
    }

    @Test("no commit, or something that is not a commit hash, is a development build")
    func developmentBuild() {
        #expect(AirlockVersion.commit(from: "") == nil)
        #expect(AirlockVersion.commit(from: "ee407ba") == nil)
        #expect(AirlockVersion.commit(from: "EE407BA87ED7A925B2F5DA0A9F47AA6CB9DD5092") == nil)
        #expect(AirlockVersion.commit(from: "ee407ba87ed7a925b2f5da0a9f47aa6cb9dd5092\n") == nil)
        #expect(
            AirlockVersion.describe(number: "0.1.0", commit: nil) == "0.1.0 (development build, no commit recorded)")
    }
}
