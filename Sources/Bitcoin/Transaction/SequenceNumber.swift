/// An input's nSequence: relative lock time (BIP68) and the replace-by-fee signal (BIP125).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0125.mediawiki
public struct SequenceNumber: RawRepresentable, Hashable, Sendable {
    /// The 32-bit value.
    public let rawValue: UInt32

    /// The sequence number `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// 0xffffffff: final, no relative lock time, no RBF, and it disables the transaction's lock time.
    public static let final = SequenceNumber(rawValue: 0xFFFF_FFFF)
    /// 0xfffffffe: no RBF, but the lock time applies.
    public static let lockTimeEnabled = SequenceNumber(rawValue: 0xFFFF_FFFE)
    /// 0xfffffffd: signals replace-by-fee (BIP125).
    public static let replaceByFee = SequenceNumber(rawValue: 0xFFFF_FFFD)

    /// Whether this input signals replaceability (any value below 0xfffffffe).
    public var signalsReplaceByFee: Bool { rawValue < 0xFFFF_FFFE }
}
