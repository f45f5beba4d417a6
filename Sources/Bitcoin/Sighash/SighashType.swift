/// A signature hash type: which parts of the transaction a signature commits to.
///
/// Legacy and segwit v0 signatures carry any 32-bit value (only the low 5 bits and 0x80 matter); taproot allows
/// only 0x00 (DEFAULT), 0x01-0x03 and 0x81-0x83.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#common-signature-message
public struct SighashType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The value as it appears in the signature hash (4 bytes in legacy and BIP143, 1 byte in BIP341).
    public let rawValue: UInt32

    /// The hash type `rawValue`.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Taproot's default: like ALL, with a 64-byte signature (no hash type byte).
    public static let `default` = SighashType(rawValue: 0x00)
    /// Commits to all inputs and outputs.
    public static let all = SighashType(rawValue: 0x01)
    /// Commits to all inputs and no outputs.
    public static let none = SighashType(rawValue: 0x02)
    /// Commits to all inputs and the output at the signed input's index.
    public static let single = SighashType(rawValue: 0x03)
    /// ALL, committing to this input only.
    public static let allAnyoneCanPay = SighashType(rawValue: 0x81)
    /// NONE, committing to this input only.
    public static let noneAnyoneCanPay = SighashType(rawValue: 0x82)
    /// SINGLE, committing to this input only.
    public static let singleAnyoneCanPay = SighashType(rawValue: 0x83)

    /// The flag that limits the commitment to the signed input.
    public static let anyoneCanPayFlag: UInt32 = 0x80

    /// Whether only the signed input is committed to.
    public var anyoneCanPay: Bool { rawValue & Self.anyoneCanPayFlag != 0 }
    /// Whether no output is committed to (base type NONE).
    public var isNone: Bool { rawValue & 0x1F == Self.none.rawValue }
    /// Whether only the output at the input's index is committed to (base type SINGLE).
    public var isSingle: Bool { rawValue & 0x1F == Self.single.rawValue }
    /// Whether the value is one of the seven types BIP341 allows.
    public var isValidForTaproot: Bool { [0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83].contains(rawValue) }

    /// `ALL`, `NONE|ANYONECANPAY`, `DEFAULT`, or the hex value of a non-standard type.
    public var description: String {
        let names: [UInt32: String] = [
            0x00: "DEFAULT", 0x01: "ALL", 0x02: "NONE", 0x03: "SINGLE", 0x81: "ALL|ANYONECANPAY",
            0x82: "NONE|ANYONECANPAY", 0x83: "SINGLE|ANYONECANPAY",
        ]
        return names[rawValue] ?? "0x" + String(rawValue, radix: 16)
    }
}
