import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import SeedBackup
import Signer
import SignerReports

/// SLIP-39 on the command line: share specifications, showing and checking shares, reading them back.
enum SLIP39Backup {
    /// A share layout (`SLIP39Layout`), its errors as ArgumentParser's.
    static func layout(_ text: String) throws -> SLIP39Layout {
        do { return try SLIP39Layout(parsing: text) } catch { throw ValidationError(error.description) }
    }

    /// Shows every share once (numbered words, on stdout) and checks each back.
    ///
    /// The check asks three words of each share, one a line on stdin, unless `check` is false. Under `json` all shares
    /// are printed as one document first, then checked.
    static func present(
        _ groups: [[SLIP39Share]], groupThreshold: Int, json: Bool, check: Bool, masterFingerprint: String
    ) throws {
        let all = groups.flatMap { $0 }
        if json {
            let document = SLIP39SharesJSON(
                groupThreshold: groupThreshold,
                groups: groups.map { members in
                    SLIP39SharesJSON.Group(
                        memberThreshold: members[0].memberThreshold,
                        shares: members.map { String(decoding: $0.words().unsafeCopyToArray(), as: UTF8.self) })
                },
                identifier: Int(all[0].identifier), iterationExponent: all[0].iterationExponent,
                extendable: all[0].extendable, masterFingerprint: masterFingerprint)
            try JSONOutput.print(document)
        }
        for (number, share) in all.enumerated() {
            let words = String(decoding: share.words().unsafeCopyToArray(), as: UTF8.self).split(separator: " ").map(
                String.init)
            let name = "share \(number + 1) of \(all.count)"
            if !json {
                var text =
                    "SLIP-39 \(name): group \(share.groupIndex + 1) of \(share.groupCount) (\(groupThreshold) "
                    + "group\(groupThreshold == 1 ? "" : "s") needed), member \(share.memberIndex + 1) of "
                    + "\(groups[share.groupIndex].count) (\(share.memberThreshold) needed). Write these "
                    + "\(words.count) words down, in order:\n"
                for (n, word) in words.enumerated() {
                    text += String(repeating: " ", count: n + 1 < 10 ? 1 : 0) + "\(n + 1). \(word)\n"
                }
                StandardOutput.write(Data(text.utf8))
            }
            guard check else { continue }
            if isatty(STDIN_FILENO) == 1 {
                guard Prompt.confirm("Have you written \(name) down?") else {
                    throw CLIError(.refused, "aborted; nothing was written")
                }
                FileHandle.standardError.write(Data("\u{1B}[2J\u{1B}[H".utf8))
            }
            try BackupCheck.run(wordCount: words.count, what: "SLIP-39 \(name)") { words[$0] }
        }
    }

    /// Reads shares: the lines of `file` (blank lines and `#` comments skipped), else typed one per line until the
    /// set is complete (on the terminal without echo; from stdin when it is not a terminal).
    ///
    /// From a file, the first complete groups (in group order, the first shares of each) are used, so a file may hold
    /// more shares than needed.
    static func readShares(file: String?) throws -> SLIP39ShareSet {
        if let file {
            let text = try SecretInput.contents(ofFile: file, limit: 1 << 16)
            let lines = String(decoding: text.unsafeCopyToArray(), as: UTF8.self).split(whereSeparator: \.isNewline)
            var shares: [SLIP39Share] = []
            for line in lines {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                shares.append(try share(trimmed, number: shares.count + 1))
            }
            guard !shares.isEmpty else { throw CLIError(.invalidInput, "\(file) holds no SLIP-39 share") }
            return SLIP39ShareSet(shares)
        }
        let terminal = isatty(STDIN_FILENO) == 1
        var set = SLIP39ShareSet()
        while !set.isComplete {
            let prompt = "SLIP-39 share \(set.shares.count + 1) (words separated by spaces): "
            let typed: SecretBytes
            if terminal {
                typed = try Prompt.secret(prompt)
            } else {
                Diagnostics.print(prompt)
                guard let line = Prompt.secretLineFromStandardInput() else {
                    throw CLIError(.invalidInput, "the input ended before the shares were complete: " + set.missing)
                }
                typed = line
            }
            let text = String(decoding: typed.unsafeCopyToArray(), as: UTF8.self)
            if text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            if try set.add(share(text, number: set.shares.count + 1)) == .duplicate {
                Diagnostics.print("That share was given already.")
                continue
            }
            if !set.isComplete { Diagnostics.print("Still needed: " + set.missing + ".") }
        }
        return set
    }

    static func share(_ text: String, number: Int) throws -> SLIP39Share {
        do throws(SLIP39Error) { return try SLIP39Share(words: text, number: number) } catch {
            throw SLIP39ShareError.invalid(error, share: nil)
        }
    }
}
