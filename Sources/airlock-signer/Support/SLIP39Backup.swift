import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import SeedBackup

/// SLIP-39 on the command line: share specifications, showing and checking shares, reading them back.
enum SLIP39Backup {
    /// A share layout: the group threshold and each group's threshold and count.
    struct Layout: Equatable {
        let groupThreshold: Int
        let groups: [SLIP39.GroupSpec]

        /// "2of3" (one group of three shares, two needed) or "1of2:2of3,3of5" (two groups, one of them needed; the
        /// first of two of three shares, the second of three of five).
        init(parsing text: String) throws {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count == 1 {
                groupThreshold = 1
                groups = [try Self.pair(String(parts[0]))]
            } else if parts.count == 2 {
                let top = try Self.pair(String(parts[0]))
                groups = try parts[1].split(separator: ",", omittingEmptySubsequences: false).map {
                    try Self.pair(String($0))
                }
                guard groups.count == top.count else {
                    throw ValidationError(
                        "'\(text)' names \(top.count) groups before ':' but lists \(groups.count) after it")
                }
                groupThreshold = top.threshold
            } else {
                throw ValidationError("'\(text)' is not MofN or G_of_N:MofN,MofN,… (e.g. 2of3 or 1of2:2of3,3of5)")
            }
            guard groups.count <= SLIP39.maxShareCount, groups.allSatisfy({ $0.count <= SLIP39.maxShareCount }) else {
                throw ValidationError("SLIP-39 allows at most 16 groups of at most 16 shares")
            }
            for group in groups where group.threshold == 1 && group.count > 1 {
                throw ValidationError(
                    "a group of 1of\(group.count) would be \(group.count) copies of one share; SLIP-39 allows 1of1 only"
                )
            }
        }

        private static func pair(_ text: String) throws -> SLIP39.GroupSpec {
            let halves = text.lowercased().split(separator: "of", omittingEmptySubsequences: false)
            guard halves.count == 2, let m = Int(halves[0]), let n = Int(halves[1]), m >= 1, m <= n else {
                throw ValidationError("'\(text)' is not M of N (e.g. 2of3, with 1 ≤ M ≤ N)")
            }
            return SLIP39.GroupSpec(threshold: m, count: n)
        }
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
    static func readShares(file: String?) throws -> [SLIP39Share] {
        var shares: [SLIP39Share] = []
        if let file {
            let text = try SecretInput.contents(ofFile: file, limit: 1 << 16)
            let lines = String(decoding: text.unsafeCopyToArray(), as: UTF8.self).split(whereSeparator: \.isNewline)
            for line in lines {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
                shares.append(try share(trimmed, number: shares.count + 1))
            }
            guard !shares.isEmpty else { throw CLIError(.invalidInput, "\(file) holds no SLIP-39 share") }
            return try select(shares)
        }
        let terminal = isatty(STDIN_FILENO) == 1
        while !isComplete(shares) {
            let prompt = "SLIP-39 share \(shares.count + 1) (words separated by spaces): "
            let typed: SecretBytes
            if terminal {
                typed = try Prompt.secret(prompt)
            } else {
                Diagnostics.print(prompt)
                guard let line = Prompt.secretLineFromStandardInput() else {
                    throw CLIError(.invalidInput, "the input ended before the shares were complete: " + missing(shares))
                }
                typed = line
            }
            let text = String(decoding: typed.unsafeCopyToArray(), as: UTF8.self)
            if text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            let next = try share(text, number: shares.count + 1)
            if shares.contains(where: { $0 == next }) {
                Diagnostics.print("That share was given already.")
                continue
            }
            do throws(SLIP39Error) { _ = try SLIP39.consistentGroups(shares + [next]) } catch {
                throw CLIError(.invalidInput, "share \(shares.count + 1): " + explain(error))
            }
            shares.append(next)
            if !isComplete(shares) { Diagnostics.print("Still needed: " + missing(shares) + ".") }
        }
        return try select(shares)
    }

    static func share(_ text: String, number: Int) throws -> SLIP39Share {
        do throws(SLIP39Error) { return try SLIP39Share(words: text, number: number) } catch {
            throw CLIError(.invalidInput, explain(error))
        }
    }

    /// Complete groups: a group is complete with its member threshold of distinct shares.
    static func completeGroups(_ shares: [SLIP39Share]) -> [Int: [SLIP39Share]] {
        var groups: [Int: [SLIP39Share]] = [:]
        for share in shares
        where !(groups[share.groupIndex] ?? []).contains(where: { $0.memberIndex == share.memberIndex }) {
            groups[share.groupIndex, default: []].append(share)
        }
        return groups.filter { $0.value.count >= $0.value[0].memberThreshold }
    }

    static func isComplete(_ shares: [SLIP39Share]) -> Bool {
        guard let first = shares.first else { return false }
        return completeGroups(shares).count >= first.groupThreshold
    }

    /// What is still missing, in words.
    static func missing(_ shares: [SLIP39Share]) -> String {
        guard let first = shares.first else { return "every share" }
        var parts: [String] = []
        let complete = completeGroups(shares)
        parts.append("\(complete.count) of \(first.groupThreshold) groups complete")
        var started: [Int: (have: Int, need: Int)] = [:]
        for share in shares where complete[share.groupIndex] == nil {
            let have = Set(shares.filter { $0.groupIndex == share.groupIndex }.map(\.memberIndex)).count
            started[share.groupIndex] = (have, share.memberThreshold)
        }
        for (group, counts) in started.sorted(by: { $0.key < $1.key }) {
            parts.append("group \(group + 1) has \(counts.have) of \(counts.need) shares")
        }
        return parts.joined(separator: "; ")
    }

    /// Exactly the threshold: the first complete groups, the first shares of each.
    ///
    /// Every share given is first checked against the others (`SLIP39.consistentGroups`), so only consistent surplus shares are left out.
    static func select(_ shares: [SLIP39Share]) throws -> [SLIP39Share] {
        let groups: [Int: [SLIP39Share]]
        do throws(SLIP39Error) { groups = try SLIP39.consistentGroups(shares) } catch {
            throw CLIError(.invalidInput, explain(error))
        }
        guard isComplete(shares), let first = shares.first else {
            throw CLIError(.invalidInput, "not enough SLIP-39 shares: " + missing(shares))
        }
        let complete = groups.filter { $0.value.count >= $0.value[0].memberThreshold }.sorted { $0.key < $1.key }
        return complete.prefix(first.groupThreshold).flatMap { $0.value.prefix($0.value[0].memberThreshold) }
    }

    /// The encrypted master secret of `shares`.
    static func recover(_ shares: [SLIP39Share]) throws -> SLIP39.EncryptedMasterSecret {
        do throws(SLIP39Error) { return try SLIP39.recover(shares) } catch {
            throw CLIError(.invalidInput, explain(error))
        }
    }

    /// A message for each SLIP-39 error.
    static func explain(_ error: SLIP39Error) -> String {
        switch error {
        case .invalidLength(let words):
            return "a SLIP-39 share has 20 or 33 words (at least 20); this one has \(words)"
        case .unknownWord(let share, let number):
            return "word \(number) of share \(share) is not in the SLIP-39 wordlist"
        case .invalidChecksum(let share):
            return "the checksum of share \(share) does not match: a word is wrong or out of order"
        case .invalidPadding(let share):
            return "share \(share) is malformed (its padding bits are not zero)"
        case .groupThresholdAboveCount(let share):
            return "share \(share) is malformed (its group threshold is above its group count)"
        case .mismatchedShares:
            return "the shares do not belong to one backup (identifier or parameters differ)"
        case .mismatchedMemberThreshold(let group):
            return "the shares of group \(group + 1) disagree on the group's threshold"
        case .duplicateMemberIndex(let group, let member):
            return "two different shares claim member \(member + 1) of group \(group + 1)"
        case .noShares:
            return "no SLIP-39 share was given"
        case .insufficientGroups(let required, let given):
            return "\(given) of the \(required) groups needed are complete"
        case .tooManyGroups(let required, let given):
            return "\(given) groups given; give exactly \(required)"
        case .wrongShareCount(let group, let required, let given):
            return "group \(group + 1) needs \(required) shares; \(given) given"
        case .invalidDigest:
            return "the shares do not combine (digest mismatch): a share is wrong or from another backup"
        case .mismatchedLengths:
            return "the shares differ in length"
        case .invalidParameters(let text):
            return text
        }
    }
}

/// `init --slip39 --json` and `backup slip39 --json`: the shares (secret; printed by request only).
struct SLIP39SharesJSON: Encodable, Sendable {
    /// One group of shares.
    struct Group: Encodable, Sendable {
        let memberThreshold: Int
        let shares: [String]
    }
    let groupThreshold: Int
    let groups: [Group]
    let identifier: Int
    let iterationExponent: Int
    let extendable: Bool
    let masterFingerprint: String
}

/// `restore --slip39 --json`.
struct RestoreSLIP39JSON: Encodable, Sendable {
    let vault: String
    let network: String
    let masterFingerprint: String
    let sharesUsed: Int
    let secretBytes: Int
}
