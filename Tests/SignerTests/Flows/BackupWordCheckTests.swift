import BitcoinCrypto
import Testing

@testable import SeedBackup
@testable import Signer

/// The backup check (`BackupWordCheck`): three distinct positions, three attempts each, a forgiving comparison.
@Suite("Backup word check")
struct BackupWordCheckTests {
    static let words = (1...12).map { "word\($0)" }

    /// Random draws that repeat (5, 5, 2, 9): the positions are still three distinct ones, ascending.
    static func check() -> BackupWordCheck {
        var draws: [UInt32] = [5, 5, 2, 9]
        return BackupWordCheck(wordCount: 12, random: { _ in draws.removeFirst() })
    }

    @Test("three distinct positions; a 2-word backup asks both")
    func positions() {
        #expect(Self.check().positions == [2, 5, 9])
        var draws: [UInt32] = [1, 1, 0]
        #expect(BackupWordCheck(wordCount: 2, random: { _ in draws.removeFirst() }).positions == [0, 1])
    }

    @Test("a word wrong three times fails naming it; right at the second attempt passes after one retry")
    func attempts() throws {
        var retries: [Int] = []
        #expect(throws: BackupCheckError.failed(word: 3, attempts: 3)) {
            try Self.check().run(
                word: { Self.words[$0] }, ask: { _ in SecretBytes(utf8: "nope") }, retry: { retries.append($0) })
        }
        #expect(retries == [2, 2])
        var asked: [Int] = []
        var wrongOnce = true
        try Self.check().run(
            word: { Self.words[$0] },
            ask: { index in
                asked.append(index)
                if index == 5, wrongOnce {
                    wrongOnce = false
                    return SecretBytes(utf8: "word5x")
                }
                return SecretBytes(utf8: "  WORD\(index + 1)\t")
            }, retry: { _ in })
        #expect(asked == [2, 5, 5, 9])
    }

    @Test("the end of input aborts; case and surrounding blanks are ignored, inner differences are not")
    func matching() {
        #expect(throws: BackupCheckError.aborted) {
            try Self.check().run(word: { Self.words[$0] }, ask: { _ in nil }, retry: { _ in })
        }
        #expect(BackupWordCheck.matches(SecretBytes(utf8: " Abandon "), Array("abandon".utf8)))
        #expect(!BackupWordCheck.matches(SecretBytes(utf8: "aban don"), Array("abandon".utf8)))
        #expect(!BackupWordCheck.matches(SecretBytes(utf8: "abandons"), Array("abandon".utf8)))
    }
}
