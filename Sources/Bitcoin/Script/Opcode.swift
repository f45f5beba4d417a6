/// A script opcode: one byte, with names for the opcodes Airlock builds or recognises.
///
/// - SeeAlso: https://github.com/bitcoin/bitcoin/blob/master/src/script/script.h
public struct Opcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The opcode byte.
    public let rawValue: UInt8

    /// The opcode with byte `rawValue`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// OP_0 / OP_FALSE: pushes an empty array.
    public static let op0 = Opcode(rawValue: 0x00)
    /// OP_PUSHDATA1: the next byte is the push length.
    public static let pushData1 = Opcode(rawValue: 0x4C)
    /// OP_PUSHDATA2: the next two bytes (little-endian) are the push length.
    public static let pushData2 = Opcode(rawValue: 0x4D)
    /// OP_PUSHDATA4: the next four bytes (little-endian) are the push length.
    public static let pushData4 = Opcode(rawValue: 0x4E)
    /// OP_1NEGATE.
    public static let op1Negate = Opcode(rawValue: 0x4F)
    /// OP_RESERVED.
    public static let reserved = Opcode(rawValue: 0x50)
    /// OP_1 / OP_TRUE.
    public static let op1 = Opcode(rawValue: 0x51)
    /// OP_16.
    public static let op16 = Opcode(rawValue: 0x60)
    /// OP_VERIFY.
    public static let verify = Opcode(rawValue: 0x69)
    /// OP_RETURN.
    public static let `return` = Opcode(rawValue: 0x6A)
    /// OP_DUP.
    public static let dup = Opcode(rawValue: 0x76)
    /// OP_EQUAL.
    public static let equal = Opcode(rawValue: 0x87)
    /// OP_EQUALVERIFY.
    public static let equalVerify = Opcode(rawValue: 0x88)
    /// OP_NUMEQUAL.
    public static let numEqual = Opcode(rawValue: 0x9C)
    /// OP_HASH160.
    public static let hash160 = Opcode(rawValue: 0xA9)
    /// OP_CODESEPARATOR.
    public static let codeSeparator = Opcode(rawValue: 0xAB)
    /// OP_CHECKSIG.
    public static let checkSig = Opcode(rawValue: 0xAC)
    /// OP_CHECKSIGVERIFY.
    public static let checkSigVerify = Opcode(rawValue: 0xAD)
    /// OP_CHECKMULTISIG.
    public static let checkMultiSig = Opcode(rawValue: 0xAE)
    /// OP_CHECKMULTISIGVERIFY.
    public static let checkMultiSigVerify = Opcode(rawValue: 0xAF)
    /// OP_CHECKLOCKTIMEVERIFY.
    public static let checkLockTimeVerify = Opcode(rawValue: 0xB1)
    /// OP_CHECKSEQUENCEVERIFY.
    public static let checkSequenceVerify = Opcode(rawValue: 0xB2)
    /// OP_CHECKSIGADD (BIP342).
    public static let checkSigAdd = Opcode(rawValue: 0xBA)

    /// OP_n for 0...16 (OP_0, OP_1 through OP_16), or nil outside that range.
    public static func smallInteger(_ n: Int) -> Opcode? {
        switch n {
        case 0: .op0
        case 1...16: Opcode(rawValue: 0x50 + UInt8(n))
        default: nil
        }
    }

    /// The value 0...16 of OP_0 or OP_1 through OP_16, else nil.
    public var smallIntegerValue: Int? {
        switch rawValue {
        case 0x00: 0
        case 0x51...0x60: Int(rawValue) - 0x50
        default: nil
        }
    }

    /// Whether the opcode pushes data (OP_0, direct pushes 1-75 and OP_PUSHDATA1/2/4).
    public var isPush: Bool { rawValue <= 0x4E }

    /// The opcode's name as Bitcoin Core prints it (`OP_CHECKSIG`), or `OP_UNKNOWN<byte>`.
    public var description: String {
        if let n = smallIntegerValue { return "OP_\(n)" }
        if rawValue >= 0x01, rawValue <= 0x4B { return "OP_PUSHBYTES_\(rawValue)" }
        return Self.names[rawValue] ?? "OP_UNKNOWN\(rawValue)"
    }

    private static let names: [UInt8: String] = [
        0x4C: "OP_PUSHDATA1", 0x4D: "OP_PUSHDATA2", 0x4E: "OP_PUSHDATA4", 0x4F: "OP_1NEGATE", 0x50: "OP_RESERVED",
        0x61: "OP_NOP", 0x62: "OP_VER", 0x63: "OP_IF", 0x64: "OP_NOTIF", 0x65: "OP_VERIF", 0x66: "OP_VERNOTIF",
        0x67: "OP_ELSE", 0x68: "OP_ENDIF", 0x69: "OP_VERIFY", 0x6A: "OP_RETURN", 0x6B: "OP_TOALTSTACK",
        0x6C: "OP_FROMALTSTACK", 0x6D: "OP_2DROP", 0x6E: "OP_2DUP", 0x6F: "OP_3DUP", 0x70: "OP_2OVER", 0x71: "OP_2ROT",
        0x72: "OP_2SWAP", 0x73: "OP_IFDUP", 0x74: "OP_DEPTH", 0x75: "OP_DROP", 0x76: "OP_DUP", 0x77: "OP_NIP",
        0x78: "OP_OVER", 0x79: "OP_PICK", 0x7A: "OP_ROLL", 0x7B: "OP_ROT", 0x7C: "OP_SWAP", 0x7D: "OP_TUCK",
        0x7E: "OP_CAT", 0x7F: "OP_SUBSTR", 0x80: "OP_LEFT", 0x81: "OP_RIGHT", 0x82: "OP_SIZE", 0x83: "OP_INVERT",
        0x84: "OP_AND", 0x85: "OP_OR", 0x86: "OP_XOR", 0x87: "OP_EQUAL", 0x88: "OP_EQUALVERIFY",
        0x89: "OP_RESERVED1", 0x8A: "OP_RESERVED2", 0x8B: "OP_1ADD", 0x8C: "OP_1SUB", 0x8D: "OP_2MUL",
        0x8E: "OP_2DIV", 0x8F: "OP_NEGATE", 0x90: "OP_ABS", 0x91: "OP_NOT", 0x92: "OP_0NOTEQUAL", 0x93: "OP_ADD",
        0x94: "OP_SUB", 0x95: "OP_MUL", 0x96: "OP_DIV", 0x97: "OP_MOD", 0x98: "OP_LSHIFT", 0x99: "OP_RSHIFT",
        0x9A: "OP_BOOLAND", 0x9B: "OP_BOOLOR", 0x9C: "OP_NUMEQUAL", 0x9D: "OP_NUMEQUALVERIFY",
        0x9E: "OP_NUMNOTEQUAL", 0x9F: "OP_LESSTHAN", 0xA0: "OP_GREATERTHAN", 0xA1: "OP_LESSTHANOREQUAL",
        0xA2: "OP_GREATERTHANOREQUAL", 0xA3: "OP_MIN", 0xA4: "OP_MAX", 0xA5: "OP_WITHIN", 0xA6: "OP_RIPEMD160",
        0xA7: "OP_SHA1", 0xA8: "OP_SHA256", 0xA9: "OP_HASH160", 0xAA: "OP_HASH256", 0xAB: "OP_CODESEPARATOR",
        0xAC: "OP_CHECKSIG", 0xAD: "OP_CHECKSIGVERIFY", 0xAE: "OP_CHECKMULTISIG", 0xAF: "OP_CHECKMULTISIGVERIFY",
        0xB0: "OP_NOP1", 0xB1: "OP_CHECKLOCKTIMEVERIFY", 0xB2: "OP_CHECKSEQUENCEVERIFY", 0xB3: "OP_NOP4",
        0xB4: "OP_NOP5", 0xB5: "OP_NOP6", 0xB6: "OP_NOP7", 0xB7: "OP_NOP8", 0xB8: "OP_NOP9", 0xB9: "OP_NOP10",
        0xBA: "OP_CHECKSIGADD", 0xFF: "OP_INVALIDOPCODE",
    ]
}
