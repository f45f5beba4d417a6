import Bitcoin
import BitcoinCrypto

extension Miniscript {
    /// The script at child `index` of branch `path`: the witness script (keys compressed) under P2WSH, the leaf
    /// script (keys x-only) under tapscript.
    ///
    /// - Throws: `DescriptorError` when a key cannot be derived.
    public func script(at index: UInt32 = 0, path: Int = 0) throws(DescriptorError) -> Script {
        let tapscript = context == .tapscript
        return Script(
            try node.operations(verify: false) { (key) throws(DescriptorError) in
                try Descriptor.keyBytes(key, index: index, path: path, tapscript: tapscript)
            })
    }
}

extension MiniscriptNode {
    /// The script operations; `verify` says the parent follows with VERIFY, which the last CHECKSIG, EQUAL or
    /// CHECKMULTISIG then takes in its VERIFY form (the `v:` rule of the translation table).
    // swiftlint:disable:next cyclomatic_complexity function_body_length
    func operations(verify: Bool, _ keyBytes: (DescriptorKey) throws(DescriptorError) -> [UInt8])
        throws(DescriptorError) -> [ScriptOperation]
    {
        func sub(_ node: MiniscriptNode, verify: Bool = false) throws(DescriptorError) -> [ScriptOperation] {
            try node.operations(verify: verify, keyBytes)
        }
        let equal: ScriptOperation = .op(verify ? .equalVerify : .equal)
        func hashCheck(_ opcode: UInt8, _ hash: [UInt8]) -> [ScriptOperation] {
            [
                .op(Opcode(rawValue: 0x82)), .number(32), .op(.equalVerify), .op(Opcode(rawValue: opcode)), .push(hash),
                equal,
            ]
        }
        let ifOp = ScriptOperation.op(Opcode(rawValue: 0x63))
        let notIf = ScriptOperation.op(Opcode(rawValue: 0x64))
        let elseOp = ScriptOperation.op(Opcode(rawValue: 0x67))
        let endIf = ScriptOperation.op(Opcode(rawValue: 0x68))
        switch self {
        case .zero: return [.number(0)]
        case .one: return [.number(1)]
        case .pkK(let key): return [.push(try keyBytes(key))]
        case .pkH(let key):
            return [.op(.dup), .op(.hash160), .push(Hash160.hash(try keyBytes(key))), .op(.equalVerify)]
        case .older(let n): return [.number(Int(n)), .op(.checkSequenceVerify)]
        case .after(let n): return [.number(Int(n)), .op(.checkLockTimeVerify)]
        case .sha256(let h): return hashCheck(0xA8, h)
        case .hash256(let h): return hashCheck(0xAA, h)
        case .ripemd160(let h): return hashCheck(0xA6, h)
        case .hash160(let h): return hashCheck(0xA9, h)
        case .andOr(let x, let y, let z):
            return try sub(x) + [notIf] + (try sub(z)) + [elseOp] + (try sub(y)) + [endIf]
        case .andV(let x, let y): return try sub(x) + (try sub(y, verify: verify))
        case .andB(let x, let y): return try sub(x) + (try sub(y)) + [.op(Opcode(rawValue: 0x9A))]
        case .orB(let x, let z): return try sub(x) + (try sub(z)) + [.op(Opcode(rawValue: 0x9B))]
        case .orC(let x, let z): return try sub(x) + [notIf] + (try sub(z)) + [endIf]
        case .orD(let x, let z):
            return try sub(x) + [.op(Opcode(rawValue: 0x73)), notIf] + (try sub(z)) + [endIf]
        case .orI(let x, let z): return [ifOp] + (try sub(x)) + [elseOp] + (try sub(z)) + [endIf]
        case .thresh(let k, let subs):
            var out = try sub(subs[0])
            for node in subs.dropFirst() { out += try sub(node) + [.op(Opcode(rawValue: 0x93))] }
            return out + [.number(k), equal]
        case .multi(let k, let keys):
            var out: [ScriptOperation] = [.number(k)]
            for key in keys { out.append(.push(try keyBytes(key))) }
            return out + [.number(keys.count), .op(verify ? .checkMultiSigVerify : .checkMultiSig)]
        case .multiA(let k, let keys):
            var out: [ScriptOperation] = []
            for (n, key) in keys.enumerated() {
                out += [.push(try keyBytes(key)), .op(n == 0 ? .checkSig : .checkSigAdd)]
            }
            return out + [.number(k), .op(verify ? Opcode(rawValue: 0x9D) : .numEqual)]
        case .alt(let x):
            return [.op(Opcode(rawValue: 0x6B))] + (try sub(x)) + [.op(Opcode(rawValue: 0x6C))]
        case .swap(let x): return [.op(Opcode(rawValue: 0x7C))] + (try sub(x, verify: verify))
        case .check(let x): return try sub(x) + [.op(verify ? .checkSigVerify : .checkSig)]
        case .dupIf(let x): return [.op(.dup), ifOp] + (try sub(x)) + [endIf]
        case .verify(let x):
            if x.analysis().type.contains(.x) { return try sub(x) + [.op(.verify)] }
            return try sub(x, verify: true)
        case .nonZero(let x):
            return [.op(Opcode(rawValue: 0x82)), .op(Opcode(rawValue: 0x92)), ifOp] + (try sub(x)) + [endIf]
        case .zeroNotEqual(let x): return try sub(x) + [.op(Opcode(rawValue: 0x92))]
        }
    }
}
