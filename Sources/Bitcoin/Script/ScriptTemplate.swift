import BitcoinCrypto

/// The standard form a scriptPubKey takes, as Bitcoin Core's Solver classifies it.
///
/// - SeeAlso: https://github.com/bitcoin/bitcoin/blob/master/src/script/solver.cpp
public enum ScriptTemplate: Hashable, Sendable {
    /// `<key> OP_CHECKSIG` with a valid compressed or uncompressed key.
    case p2pk(PublicKey)
    /// `OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG`.
    case p2pkh(PubkeyHash)
    /// `OP_HASH160 <20> OP_EQUAL`.
    case p2sh(ScriptHash)
    /// `OP_0 <20>`.
    case p2wpkh(PubkeyHash)
    /// `OP_0 <32>`.
    case p2wsh(WitnessScriptHash)
    /// `OP_1 <32>` where the 32 bytes are a valid x-only key.
    case p2tr(XOnlyPublicKey)
    /// Any other witness program (versions 1-16, or a v1 program that is not a taproot key).
    case witnessProgram(WitnessProgram)
    /// Bare `OP_k <keys> OP_n OP_CHECKMULTISIG` with 1 ≤ k ≤ n ≤ 20 and valid keys.
    case multisig(threshold: Int, keys: [PublicKey])
    /// `OP_RETURN` followed only by pushes; the pushed bytes concatenated.
    case nullData([UInt8])
    /// Anything else.
    case nonStandard
}

extension Script {
    /// This script's standard template, or `.nonStandard`.
    public var template: ScriptTemplate {
        let b = bytes
        if b.count == 25, b[0] == 0x76, b[1] == 0xA9, b[2] == 0x14, b[23] == 0x88, b[24] == 0xAC {
            return .p2pkh(PubkeyHash(unchecked: Array(b[3..<23])))
        }
        if b.count == 23, b[0] == 0xA9, b[1] == 0x14, b[22] == 0x87 {
            return .p2sh(ScriptHash(unchecked: Array(b[2..<22])))
        }
        if let program = witnessProgram {
            switch (program.version, program.program.count) {
            case (0, 20): return .p2wpkh(PubkeyHash(unchecked: program.program))
            case (0, 32): return .p2wsh(WitnessScriptHash(unchecked: program.program))
            case (1, 32):
                if let key = try? XOnlyPublicKey(serialized: program.program) { return .p2tr(key) }
                return .witnessProgram(program)
            default: return .witnessProgram(program)
            }
        }
        if b.count == 35 || b.count == 67, Int(b[0]) == b.count - 2, b.last == Opcode.checkSig.rawValue,
            let key = try? PublicKey(serialized: b[1..<(b.count - 1)])
        {
            return .p2pk(key)
        }
        if b.first == Opcode.return.rawValue, let operations = try? Script(b.dropFirst()).operations(),
            operations.allSatisfy({ $0.opcode.rawValue <= 0x60 })
        {
            return .nullData(operations.flatMap { $0.data ?? [] })
        }
        if let multisig = multisigTemplate { return multisig }
        return .nonStandard
    }

    /// The witness program when the script is `OP_n <2...40 bytes>` (n in 0...16) and nothing else.
    public var witnessProgram: WitnessProgram? {
        let b = bytes
        guard b.count >= 4, b.count <= 42, Int(b[1]) == b.count - 2,
            let version = Opcode(rawValue: b[0]).smallIntegerValue
        else { return nil }
        return try? WitnessProgram(version: version, program: Array(b[2...]))
    }

    private var multisigTemplate: ScriptTemplate? {
        guard let operations = try? self.operations(), operations.count >= 4,
            operations.last?.opcode == .checkMultiSig,
            let threshold = operations.first?.opcode.smallIntegerValue,
            let count = operations[operations.count - 2].opcode.smallIntegerValue,
            threshold >= 1, count >= threshold, operations.count == count + 3
        else { return nil }
        var keys: [PublicKey] = []
        for operation in operations[1...count] {
            guard let data = operation.data, let key = try? PublicKey(serialized: data) else { return nil }
            keys.append(key)
        }
        return .multisig(threshold: threshold, keys: keys)
    }
}
