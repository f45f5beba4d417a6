/// One BIP32 child number: an index below 2^31 and whether it is hardened (stored as index + 2^31).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#child-key-derivation-ckd-functions
public struct ChildNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The first hardened raw value, 2^31.
    public static let hardenedOffset: UInt32 = 0x8000_0000

    /// The 32-bit value as serialized: the index, plus 2^31 when hardened.
    public let rawValue: UInt32

    /// A child number from its serialized 32-bit value (any value is valid).
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// A child number from an index below 2^31 and a hardened flag.
    ///
    /// - Throws: `BIP32Error.indexOutOfRange` when `index` is 2^31 or more.
    public init(index: UInt32, hardened: Bool) throws(BIP32Error) {
        guard index < Self.hardenedOffset else { throw .indexOutOfRange(String(index), position: 0) }
        self.rawValue = hardened ? index | Self.hardenedOffset : index
    }

    /// A normal (non-hardened) child number; `index` must be below 2^31.
    public static func normal(_ index: UInt32) throws(BIP32Error) -> ChildNumber {
        try ChildNumber(index: index, hardened: false)
    }

    /// A hardened child number; `index` must be below 2^31.
    public static func hardened(_ index: UInt32) throws(BIP32Error) -> ChildNumber {
        try ChildNumber(index: index, hardened: true)
    }

    /// Whether this is a hardened child (raw value at least 2^31).
    public var isHardened: Bool { rawValue >= Self.hardenedOffset }

    /// The index without the hardened bit.
    public var index: UInt32 { rawValue & ~Self.hardenedOffset }

    /// The index, with an `h` suffix when hardened.
    public var description: String { isHardened ? "\(index)h" : "\(index)" }

    public static func < (lhs: ChildNumber, rhs: ChildNumber) -> Bool { lhs.rawValue < rhs.rawValue }
}
