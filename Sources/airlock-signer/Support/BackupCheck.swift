import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation

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
        var chosen: [Int] = []
        while chosen.count < min(positions, mnemonic.wordCount) {
            let index = Int(SecureRandom.uniform(UInt32(mnemonic.wordCount)))
            if !chosen.contains(index) { chosen.append(index) }
        }
        Diagnostics.print("Backup check: type the requested words of your written backup.")
        for index in chosen.sorted() {
            var passed = false
            for attempt in 1...attempts {
                Diagnostics.print("word #\(index + 1)?")
                guard let answer = readLine(strippingNewline: true) else {
                    throw CLIError(.refused, "backup check aborted (end of input); nothing was written")
                }
                let typed = answer.trimmingCharacters(in: .whitespaces).lowercased()
                if typed == mnemonic.word(at: index) {
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
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
