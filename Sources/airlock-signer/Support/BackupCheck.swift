import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import SeedBackup
import Signer
import SignerReports

/// The backup check on the terminal (`BackupWordCheck` decides): one answer per stdin line.
enum BackupCheck {
    /// Asks for three distinct random words of `mnemonic`.
    ///
    /// - Throws: `BackupCheckError` (refused, exit 4) after three wrong answers for a position or at end of input.
    static func run(_ mnemonic: Mnemonic) throws {
        try run(wordCount: mnemonic.wordCount, what: "your written backup") { mnemonic.word(at: $0) }
    }

    /// Asks for three distinct random words of a backup of `wordCount` words; `word` gives word `n` (0-based).
    static func run(wordCount: Int, what: String, word: (Int) -> String) throws {
        Diagnostics.print("Backup check: type the requested words of \(what).")
        try BackupWordCheck(wordCount: wordCount).run(
            word: word,
            ask: { index in
                Diagnostics.print("word #\(index + 1)?")
                return Prompt.secretLineFromStandardInput()
            },
            retry: { Diagnostics.print("That is not word #\($0 + 1). Try again.") })
        Diagnostics.print("Backup check passed.")
    }

    /// Writes the words, numbered, to stdout (unbuffered, so a reader sees them before the prompts); or as JSON.
    static func show(
        _ mnemonic: Mnemonic, json: Bool, words count: Int? = nil, masterFingerprint: String? = nil
    ) throws {
        let words = (0..<mnemonic.wordCount).map { mnemonic.word(at: $0) }
        if json {
            try JSONOutput.print(
                MnemonicJSON(mnemonic: words.joined(separator: " "), words: count, masterFingerprint: masterFingerprint)
            )
            return
        }
        var text = "Write these \(words.count) words down, in order, and keep them offline:\n"
        for (n, word) in words.enumerated() {
            text += String(repeating: " ", count: n + 1 < 10 ? 1 : 0) + "\(n + 1). \(word)\n"
        }
        StandardOutput.write(Data(text.utf8))
    }
}
