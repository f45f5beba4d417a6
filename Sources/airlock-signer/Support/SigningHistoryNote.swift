import Bitcoin
import CLISupport
import Foundation
import Signer

/// What the signer says before reviewing a PSBT its journal has seen: its own signed answer fed back is refused
/// with where it came from; a request signed before gets a note and is reviewed again.
enum SigningHistoryNote {
    /// Checks `psbt` against the journal of `unlocked`.
    ///
    /// - Throws: `CLIError` invalid input (2) for the signed answer this vault wrote; nothing for a journal that
    ///   cannot be read (the review goes on; `audit --verify` reports a damaged journal).
    static func check(_ psbt: PSBT, unlocked: UnlockedVault) throws {
        guard let entries = try? unlocked.auditLog.entries(),
            let finding = SigningHistory.finding(for: psbt, entries: entries, key: unlocked.auditKey)
        else { return }
        let entry = finding.entry
        let when = entry.time.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC")
        switch finding {
        case .signedAnswer:
            throw CLIError(
                .invalidInput,
                "this is the signed answer you wrote on \(when) (journal entry \(entry.sequence)), not a request: "
                    + "take it to the watcher (airlock-watcher broadcast), or give the signer the unsigned PSBT")
        case .signedBefore:
            Diagnostics.print(
                "note: this transaction was already signed on \(when) (journal entry \(entry.sequence)); "
                    + "it is reviewed again below")
        }
    }
}
