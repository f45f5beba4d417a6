import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import SeedBackup

/// The backup check: the user types back the words at randomly chosen positions (one answer per stdin line).
enum BackupCheck {
    /// How many positions are asked.
    static let positions = 3
    /// Attempts per position before the check fails.
    static let attempts = 3

    /// Asks for `positions` distinct random words of `mnemonic`.
    ///
    /// - Throws: `CLIError` (refused, exit 4) after `attempts` wrong answers for a position or at end of input.
    static func run(_ mnemonic: Mnemonic) throws {
        try run(wordCount: mnemonic.wordCount, what: "your written backup") { mnemonic.word(at: $0) }
    }

    /// Asks for `positions` distinct random words of a backup of `wordCount` words; `word` gives word `n` (0-based).
    static func run(wordCount: Int, what: String, word: (Int) -> String) throws {
        var chosen: [Int] = []
        while chosen.count < min(positions, wordCount) {
            let index = Int(SecureRandom.uniform(UInt32(wordCount)))
            if !chosen.contains(index) { chosen.append(index) }
        }
        Diagnostics.print("Backup check: type the requested words of \(what).")
        for index in chosen.sorted() {
            var passed = false
            for attempt in 1...attempts {
                Diagnostics.print("word #\(index + 1)?")
                // The typed word stays in secret memory; it is trimmed, lower-cased and compared byte by byte.
                guard let answer = Prompt.secretLineFromStandardInput() else {
                    throw CLIError(.refused, "backup check aborted (end of input); nothing was written")
                }
                if Self.matches(answer, Array(word(index).utf8)) {
                    passed = true
                    break
                }
                if attempt < attempts { Diagnostics.print("That is not word #\(index + 1). Try again.") }
            }
            guard passed else {
                throw CLIError(.refused, "backup check failed: word #\(index + 1) was wrong \(attempts) times")
            }
        }
        Diagnostics.print("Backup check passed.")
    }

    /// Whether `typed` is `word`, ignoring surrounding spaces and tabs and ASCII case.
    static func matches(_ typed: SecretBytes, _ word: [UInt8]) -> Bool {
        typed.withUnsafeBytes { bytes in
            var start = 0
            var end = bytes.count
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            guard end - start == word.count else { return false }
            var difference: UInt8 = 0
            for (offset, letter) in word.enumerated() {
                let byte = bytes[start + offset]
                difference |= ((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) ^ letter
            }
            return difference == 0
        }
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
