import Bitcoin

/// Errors from reading, combining or making SLIP-39 shares.
///
/// - SeeAlso: https://github.com/satoshilabs/slips/blob/master/slip-0039.md
public enum SLIP39Error: Error, Equatable, Sendable {
    /// A share has fewer than 20 words, or a word count that cannot hold a whole number of bytes.
    case invalidLength(words: Int)
    /// A word that is not in the SLIP-39 wordlist: its number (1-based) within its share. The word itself is left out.
    case unknownWord(share: Int, number: Int)
    /// The RS1024 checksum of a share does not match (a typo in the share).
    case invalidChecksum(share: Int)
    /// The padding bits of a share's value are not zero, or the value is shorter than 128 bits or of odd length.
    case invalidPadding(share: Int)
    /// A share says its group threshold is above its group count.
    case groupThresholdAboveCount(share: Int)
    /// The shares do not all begin with the same identifier, extendable flag, iteration exponent, group threshold and
    /// group count: they come from different backups.
    case mismatchedShares
    /// Two shares of one group disagree on the member threshold.
    case mismatchedMemberThreshold(group: Int)
    /// Two different shares carry the same member index in one group.
    case duplicateMemberIndex(group: Int, member: Int)
    /// No share was given.
    case noShares
    /// Fewer groups than the group threshold are complete.
    case insufficientGroups(required: Int, given: Int)
    /// More groups than the group threshold were given (give exactly the threshold).
    case tooManyGroups(required: Int, given: Int)
    /// A group holds a number of shares other than its member threshold.
    case wrongShareCount(group: Int, required: Int, given: Int)
    /// The recovered secret does not match its digest: a share is wrong or from another backup.
    case invalidDigest
    /// Shares of one group differ in value length.
    case mismatchedLengths
    /// Split parameters out of range (thresholds, counts, secret length, iteration exponent).
    case invalidParameters(String)
}
