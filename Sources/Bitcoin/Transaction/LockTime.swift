/// A transaction's nLockTime: a block height below 500,000,000, else a Unix time.
///
/// - SeeAlso: https://en.bitcoin.it/wiki/NLockTime
public struct LockTime: RawRepresentable, Hashable, Sendable {
    /// The 32-bit value.
    public let rawValue: UInt32

    /// The lock time `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// No lock time.
    public static let none = LockTime(rawValue: 0)
    /// Values below this are block heights, at or above it Unix times.
    public static let threshold: UInt32 = 500_000_000

    /// Whether the value is a block height (rather than a time).
    public var isBlockHeight: Bool { rawValue < Self.threshold }
}
