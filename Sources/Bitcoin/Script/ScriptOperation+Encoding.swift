extension ScriptOperation {
    /// A push of `data` with the smallest opcode that can push it (Bitcoin Core's `CScript << data`).
    public static func push(_ data: [UInt8]) -> ScriptOperation {
        switch data.count {
        case 0: .push(.op0, [])
        case 1...0x4B: .push(Opcode(rawValue: UInt8(data.count)), data)
        case 0x4C...0xFF: .push(.pushData1, data)
        case 0x100...0xFFFF: .push(.pushData2, data)
        default: .push(.pushData4, data)
        }
    }

    /// The number `n` as a script pushes it minimally: OP_0, OP_1 through OP_16, OP_1NEGATE, or a CScriptNum push.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bitcoin/blob/master/src/script/script.h (CScript::push_int64)
    public static func number(_ n: Int) -> ScriptOperation {
        if n == -1 { return .op(.op1Negate) }
        if n == 0 { return .push(.op0, []) }
        if let opcode = Opcode.smallInteger(n) { return .op(opcode) }
        return .push(scriptNumber(n))
    }

    /// The minimal CScriptNum encoding of `n`: little-endian magnitude with a sign bit.
    static func scriptNumber(_ n: Int) -> [UInt8] {
        guard n != 0 else { return [] }
        var magnitude = n.magnitude
        var out: [UInt8] = []
        while magnitude > 0 {
            out.append(UInt8(truncatingIfNeeded: magnitude))
            magnitude >>= 8
        }
        if let last = out.last, last & 0x80 != 0 {
            out.append(n < 0 ? 0x80 : 0x00)
        } else if n < 0, let last = out.indices.last {
            out[last] |= 0x80
        }
        return out
    }

    /// Appends this operation's bytes; a push is written with its own opcode and length field.
    func append(to out: inout [UInt8]) {
        switch self {
        case .op(let opcode):
            out.append(opcode.rawValue)
        case .push(let opcode, let data):
            out.append(opcode.rawValue)
            switch opcode.rawValue {
            case 0x4C: out.append(UInt8(truncatingIfNeeded: data.count))
            case 0x4D: for i in 0..<2 { out.append(UInt8(truncatingIfNeeded: data.count >> (8 * i))) }
            case 0x4E: for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: data.count >> (8 * i))) }
            default: break
            }
            out.append(contentsOf: data)
        }
    }
}
