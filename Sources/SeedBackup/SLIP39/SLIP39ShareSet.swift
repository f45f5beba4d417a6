import Bitcoin
import BitcoinCrypto

/// A SLIP-39 share layout asked for on the command line: the group threshold and each group's threshold and count.
public struct SLIP39Layout: Equatable, Sendable {
    /// How many groups restore the secret.
    public let groupThreshold: Int
    /// Each group's threshold and count.
    public let groups: [SLIP39.GroupSpec]

    /// Why a layout text is not one (the message names the text and the form expected).
    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// "2of3" (one group of three shares, two needed) or "1of2:2of3,3of5" (two groups, one of them needed; the
    /// first of two of three shares, the second of three of five).
    ///
    /// - Throws: `Invalid` for another form, more than 16 groups or shares, or a group of 1ofN with N > 1.
    public init(parsing text: String) throws(Invalid) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 1 {
            groupThreshold = 1
            groups = [try Self.pair(String(parts[0]))]
        } else if parts.count == 2 {
            let top = try Self.pair(String(parts[0]))
            var groups: [SLIP39.GroupSpec] = []
            for part in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
                groups.append(try Self.pair(String(part)))
            }
            guard groups.count == top.count else {
                throw Invalid(
                    description: "'\(text)' names \(top.count) groups before ':' but lists \(groups.count) after it")
            }
            self.groups = groups
            groupThreshold = top.threshold
        } else {
            throw Invalid(description: "'\(text)' is not MofN or G_of_N:MofN,MofN,… (e.g. 2of3 or 1of2:2of3,3of5)")
        }
        guard groups.count <= SLIP39.maxShareCount, groups.allSatisfy({ $0.count <= SLIP39.maxShareCount }) else {
            throw Invalid(description: "SLIP-39 allows at most 16 groups of at most 16 shares")
        }
        for group in groups where group.threshold == 1 && group.count > 1 {
            throw Invalid(
                description:
                    "a group of 1of\(group.count) would be \(group.count) copies of one share; SLIP-39 allows 1of1 only"
            )
        }
    }

    private static func pair(_ text: String) throws(Invalid) -> SLIP39.GroupSpec {
        let halves = text.lowercased().split(separator: "of", omittingEmptySubsequences: false)
        guard halves.count == 2, let m = Int(halves[0]), let n = Int(halves[1]), m >= 1, m <= n else {
            throw Invalid(description: "'\(text)' is not M of N (e.g. 2of3, with 1 ≤ M ≤ N)")
        }
        return SLIP39.GroupSpec(threshold: m, count: n)
    }
}

/// Why SLIP-39 shares given for a restore are not usable (invalid input).
public enum SLIP39ShareError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A share, or the shares together, fail a SLIP-39 rule (the share's number when the failure is about it).
    case invalid(SLIP39Error, share: Int?)
    /// The shares given complete too few groups (what is still missing, in words).
    case notEnough(missing: String)

    public var description: String {
        switch self {
        case .invalid(let error, let share): (share.map { "share \($0): " } ?? "") + SLIP39ShareSet.explain(error)
        case .notEnough(let missing): "not enough SLIP-39 shares: " + missing
        }
    }
}

/// The SLIP-39 shares given so far for a restore, and what they complete: a group is complete with its member
/// threshold of distinct shares, the set with the group threshold of complete groups.
public struct SLIP39ShareSet: Sendable {
    /// The shares, in the order given.
    public private(set) var shares: [SLIP39Share] = []

    /// An empty set.
    public init() {}

    /// A set of `shares` as given (in a file; not checked until `selected()`).
    public init(_ shares: [SLIP39Share]) { self.shares = shares }

    /// The outcome of adding a share.
    public enum Added: Equatable, Sendable {
        /// The share was added.
        case added
        /// The same share was given already (nothing changed).
        case duplicate
    }

    /// Adds `share` after checking it against the shares already given.
    ///
    /// - Throws: `SLIP39ShareError.invalid` (with the share's number) when it does not belong with them (another
    ///   backup, another threshold for its group, a different share at the same member index).
    @discardableResult
    public mutating func add(_ share: SLIP39Share) throws(SLIP39ShareError) -> Added {
        if shares.contains(share) { return .duplicate }
        do throws(SLIP39Error) { _ = try SLIP39.consistentGroups(shares + [share]) } catch {
            throw .invalid(error, share: shares.count + 1)
        }
        shares.append(share)
        return .added
    }

    /// The complete groups by index (distinct member indexes only).
    public var completeGroups: [Int: [SLIP39Share]] {
        var groups: [Int: [SLIP39Share]] = [:]
        for share in shares
        where !(groups[share.groupIndex] ?? []).contains(where: { $0.memberIndex == share.memberIndex }) {
            groups[share.groupIndex, default: []].append(share)
        }
        return groups.filter { $0.value.count >= $0.value[0].memberThreshold }
    }

    /// Whether the shares complete the group threshold of groups.
    public var isComplete: Bool {
        guard let first = shares.first else { return false }
        return completeGroups.count >= first.groupThreshold
    }

    /// What is still missing, in words: "1 of 2 groups complete; group 2 has 1 of 3 shares".
    public var missing: String {
        guard let first = shares.first else { return "every share" }
        var parts: [String] = []
        let complete = completeGroups
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

    /// Exactly the threshold: the first complete groups (in group order), the first shares of each.
    ///
    /// Every share is first checked against the others (`SLIP39.consistentGroups`), so only consistent surplus
    /// shares are left out.
    ///
    /// - Throws: `SLIP39ShareError.invalid` when the shares disagree, `.notEnough` when they complete too few groups.
    public func selected() throws(SLIP39ShareError) -> [SLIP39Share] {
        let groups: [Int: [SLIP39Share]]
        do throws(SLIP39Error) { groups = try SLIP39.consistentGroups(shares) } catch {
            throw .invalid(error, share: nil)
        }
        guard isComplete, let first = shares.first else { throw .notEnough(missing: missing) }
        let complete = groups.filter { $0.value.count >= $0.value[0].memberThreshold }.sorted { $0.key < $1.key }
        return complete.prefix(first.groupThreshold).flatMap { $0.value.prefix($0.value[0].memberThreshold) }
    }

    /// The encrypted master secret the selected shares restore.
    ///
    /// - Throws: as `selected()`, and `SLIP39ShareError.invalid` when they do not combine.
    public func recover() throws(SLIP39ShareError) -> SLIP39.EncryptedMasterSecret {
        let chosen = try selected()
        do throws(SLIP39Error) { return try SLIP39.recover(chosen) } catch { throw .invalid(error, share: nil) }
    }

    /// A message for each SLIP-39 error, in the user's words.
    public static func explain(_ error: SLIP39Error) -> String {
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
