/// One parsed element of a script: a data push (with the opcode that pushed it) or any other opcode.
public enum ScriptOperation: Hashable, Sendable {
    /// `opcode` (OP_0, a direct push, or OP_PUSHDATA1/2/4) pushed `data`.
    case push(Opcode, [UInt8])
    /// An opcode that pushes no data.
    case op(Opcode)

    /// The opcode of this element.
    public var opcode: Opcode {
        switch self {
        case .push(let opcode, _), .op(let opcode): opcode
        }
    }

    /// The pushed bytes, or nil for a non-push opcode.
    public var data: [UInt8]? {
        if case .push(_, let data) = self { return data }
        return nil
    }
}
