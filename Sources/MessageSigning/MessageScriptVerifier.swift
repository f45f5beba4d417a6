import Bitcoin
import BitcoinCrypto

/// A small script interpreter for checking BIP322 message signatures: it evaluates the script kinds wallets sign
/// messages with (P2PKH, P2SH, P2WPKH, P2WSH, P2TR key and script path, and the opcodes miniscript compiles to) under BIP322's required rules (SIGHASH_ALL or
/// DEFAULT, no CODESEPARATOR, strict DER, low S, NULLFAIL, MINIMALDATA, MINIMALIF, CLEANSTACK, NULLDUMMY).
///
/// It is not a consensus engine: an opcode it does not know, an upgradable NOP, a witness version above 1 or a
/// taproot leaf version other than 0xc0 gives `.inconclusive`, as BIP322 allows for a validator without a full
/// interpreter ("Verification Process", step 2).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0322.mediawiki#verification-process
struct MessageScriptVerifier {
    /// The outcome of one input.
    enum Outcome: Equatable {
        case valid
        case invalid(String)
        case inconclusive(String)
    }

    private enum Failure: Error {
        case invalid(String)
        case inconclusive(String)
    }

    private enum SigVersion {
        case base
        case witnessV0
        case tapscript(leafHash: TapNodeHash)
    }

    let transaction: Transaction
    let spentOutputs: [TxOut]
    private var cache: SighashCache

    init(transaction: Transaction, spentOutputs: [TxOut]) {
        self.transaction = transaction
        self.spentOutputs = spentOutputs
        self.cache = SighashCache(transaction, spentOutputs: spentOutputs)
    }

    /// Checks input `index` against the output it spends (Bitcoin Core's VerifyScript with P2SH and witness).
    mutating func verify(input index: Int) -> Outcome {
        do {
            try run(index)
            return .valid
        } catch {
            switch error {
            case .invalid(let reason): return .invalid(reason)
            case .inconclusive(let reason): return .inconclusive(reason)
            }
        }
    }

    private mutating func run(_ index: Int) throws(Failure) {
        let input = transaction.inputs[index]
        let scriptPubKey = spentOutputs[index].scriptPubKey
        let amount = spentOutputs[index].value
        let scriptSigOps = try parse(input.scriptSig)
        guard scriptSigOps.allSatisfy({ $0.data != nil || $0.opcode.smallIntegerValue != nil }) else {
            throw .invalid("the scriptSig is not push-only")
        }
        var stack: [[UInt8]] = []
        try execute(input.scriptSig, stack: &stack, version: .base, index: index, amount: amount)
        let afterScriptSig = stack
        try execute(scriptPubKey, stack: &stack, version: .base, index: index, amount: amount)
        guard let top = stack.last, Self.isTrue(top) else { throw .invalid("invalid signature: the script is false") }
        var witnessUsed = false
        if let program = Self.witnessProgram(scriptPubKey) {
            guard input.scriptSig.isEmpty else { throw .invalid("a native witness input has a scriptSig") }
            try verifyWitness(program, index: index, amount: amount, p2sh: false)
            witnessUsed = true
            stack = [[1]]
        } else if Self.isP2SH(scriptPubKey) {
            guard let redeemBytes = afterScriptSig.last else { throw .invalid("P2SH without a redeem script") }
            let redeem = Script(redeemBytes)
            stack = Array(afterScriptSig.dropLast())
            try execute(redeem, stack: &stack, version: .base, index: index, amount: amount)
            guard let top = stack.last, Self.isTrue(top) else {
                throw .invalid("invalid signature: the redeem script is false")
            }
            if let program = Self.witnessProgram(redeem) {
                guard input.scriptSig.bytes == Script([.push(redeemBytes)]).bytes else {
                    throw .invalid("a P2SH witness input's scriptSig is not the redeem script alone")
                }
                try verifyWitness(program, index: index, amount: amount, p2sh: true)
                witnessUsed = true
                stack = [[1]]
            }
        }
        guard stack.count == 1 else { throw .invalid("CLEANSTACK: \(stack.count) elements are left") }
        if !witnessUsed, !input.witness.isEmpty { throw .invalid("a witness on an input that takes none") }
    }

    private mutating func verifyWitness(
        _ program: (version: Int, program: [UInt8]), index: Int, amount: Amount, p2sh: Bool
    )
        throws(Failure)
    {
        var items = transaction.inputs[index].witness.items
        switch (program.version, program.program.count) {
        case (0, 20):
            guard items.count == 2 else { throw .invalid("invalid signature: a P2WPKH witness needs 2 items") }
            let script = Script.p2pkh(PubkeyHash(unchecked: program.program))
            try executeWitnessScript(script, stack: items, version: .witnessV0, index: index, amount: amount)
        case (0, 32):
            guard let scriptBytes = items.popLast() else { throw .invalid("invalid signature: empty witness") }
            guard SHA256.hash(scriptBytes) == program.program else {
                throw .invalid("invalid signature: the witness script does not match the P2WSH program")
            }
            try executeWitnessScript(
                Script(scriptBytes), stack: items, version: .witnessV0, index: index, amount: amount)
        case (0, _):
            throw .invalid("a version 0 witness program of \(program.program.count) bytes")
        case (1, 32) where !p2sh:
            try verifyTaproot(program.program, items: items, index: index)
        default:
            throw .inconclusive("witness version \(program.version) is not understood here")
        }
    }

    private mutating func verifyTaproot(_ outputKeyBytes: [UInt8], items original: [[UInt8]], index: Int)
        throws(Failure)
    {
        var items = original
        guard !items.isEmpty else { throw .invalid("invalid signature: empty witness") }
        var annex: [UInt8]?
        if items.count >= 2, items.last?.first == 0x50 { annex = items.popLast() }
        guard let outputKey = try? XOnlyPublicKey(serialized: outputKeyBytes) else {
            throw .invalid("the taproot output key is not a valid point")
        }
        if items.count == 1 {
            let (signature, type) = try schnorrSignature(items[0])
            let digest: [UInt8]
            do { digest = try cache.taprootSignatureHash(inputIndex: index, type: type, annex: annex) } catch {
                throw .invalid("taproot sighash: \(error)")
            }
            guard outputKey.verify(signature, message: digest) else {
                throw .invalid("invalid signature: the key-path signature does not verify")
            }
            return
        }
        let controlBytes = items.removeLast()
        let scriptBytes = items.removeLast()
        let control: ControlBlock
        do { control = try ControlBlock(serialized: controlBytes) } catch {
            throw .invalid("invalid control block: \(error)")
        }
        guard control.leafVersion == TapLeaf.tapscriptVersion else {
            throw .inconclusive("taproot leaf version \(control.leafVersion) is not understood here")
        }
        let leaf = TapLeaf(tapscript: Script(scriptBytes))
        let root = control.merkleRoot(for: leaf)
        guard
            let tweaked = try? control.internalKey.adding(
                tweak: TaprootTweak.tweak(internalKey: control.internalKey, merkleRoot: root.bytes)),
            tweaked.key == outputKey, tweaked.parityIsOdd == control.outputKeyParityIsOdd
        else { throw .invalid("invalid signature: the script is not committed to by the output key") }
        try executeWitnessScript(
            leaf.script, stack: items, version: .tapscript(leafHash: leaf.hash), index: index, amount: .zero,
            annex: annex)
    }

    private mutating func executeWitnessScript(
        _ script: Script, stack initial: [[UInt8]], version: SigVersion, index: Int, amount: Amount,
        annex: [UInt8]? = nil
    ) throws(Failure) {
        var stack = initial
        guard stack.allSatisfy({ $0.count <= Script.maxElementSize }) else {
            throw .invalid("a witness element is larger than 520 bytes")
        }
        try execute(script, stack: &stack, version: version, index: index, amount: amount, annex: annex)
        guard stack.count == 1 else { throw .invalid("CLEANSTACK: \(stack.count) elements are left") }
        guard Self.isTrue(stack[0]) else { throw .invalid("invalid signature: the witness script is false") }
    }

    // MARK: - Evaluation

    private func parse(_ script: Script) throws(Failure) -> [ScriptOperation] {
        do { return try script.operations() } catch { throw .invalid("the script does not parse: \(error)") }
    }

    private mutating func execute(
        _ script: Script, stack: inout [[UInt8]], version: SigVersion, index: Int, amount: Amount,
        annex: [UInt8]? = nil
    ) throws(Failure) {
        var conditions: [Bool] = []
        var altStack: [[UInt8]] = []
        let isTapscript: Bool
        if case .tapscript = version { isTapscript = true } else { isTapscript = false }
        for operation in try parse(script) {
            let executing = !conditions.contains(false)
            let opcode = operation.opcode
            if isTapscript, Self.isOpSuccess(opcode.rawValue) {
                throw .inconclusive("the tapscript uses OP_SUCCESS\(opcode.rawValue)")
            }
            if let data = operation.data {
                guard data.count <= Script.maxElementSize else { throw .invalid("a push larger than 520 bytes") }
                if executing {
                    guard Self.isMinimalPush(opcode, data) else { throw .invalid("MINIMALDATA: a push is not minimal") }
                    stack.append(data)
                }
                continue
            }
            switch opcode.rawValue {
            case 0x63, 0x64:  // IF, NOTIF
                var value = false
                if executing {
                    let top = try pop(&stack)
                    guard top.isEmpty || top == [1] else { throw .invalid("MINIMALIF: the IF argument is not minimal") }
                    value = Self.isTrue(top) == (opcode.rawValue == 0x63)
                }
                conditions.append(value)
                continue
            case 0x67:  // ELSE
                guard !conditions.isEmpty else { throw .invalid("ELSE without IF") }
                conditions[conditions.count - 1].toggle()
                continue
            case 0x68:  // ENDIF
                guard conditions.popLast() != nil else { throw .invalid("ENDIF without IF") }
                continue
            default: break
            }
            if opcode == .codeSeparator { throw .invalid("OP_CODESEPARATOR is forbidden in BIP322 signatures") }
            if [0x65, 0x66].contains(opcode.rawValue) { throw .invalid("OP_VERIF/OP_VERNOTIF") }
            guard executing else { continue }
            if let small = opcode.smallIntegerValue {
                stack.append(Self.encodeNumber(Int64(small)))
                continue
            }
            switch opcode.rawValue {
            case 0x61: break  // NOP
            case 0x69:  // VERIFY
                guard Self.isTrue(try pop(&stack)) else { throw .invalid("invalid signature: VERIFY failed") }
            case 0x6A: throw .invalid("OP_RETURN")
            case 0x6B: altStack.append(try pop(&stack))  // TOALTSTACK
            case 0x6C:  // FROMALTSTACK
                guard let top = altStack.popLast() else { throw .invalid("FROMALTSTACK on an empty alt stack") }
                stack.append(top)
            case 0x73:  // IFDUP
                guard let top = stack.last else { throw .invalid("IFDUP on an empty stack") }
                if Self.isTrue(top) { stack.append(top) }
            case 0x75: _ = try pop(&stack)  // DROP
            case 0x76:  // DUP
                guard let top = stack.last else { throw .invalid("DUP on an empty stack") }
                stack.append(top)
            case 0x7C:  // SWAP
                guard stack.count >= 2 else { throw .invalid("SWAP needs two elements") }
                stack.swapAt(stack.count - 1, stack.count - 2)
            case 0x82:  // SIZE
                guard let top = stack.last else { throw .invalid("SIZE on an empty stack") }
                stack.append(Self.encodeNumber(Int64(top.count)))
            case 0x87, 0x88:  // EQUAL, EQUALVERIFY
                let b = try pop(&stack)
                let a = try pop(&stack)
                if opcode.rawValue == 0x88 {
                    guard a == b else { throw .invalid("invalid signature: EQUALVERIFY failed") }
                } else {
                    stack.append(a == b ? [1] : [])
                }
            case 0x9C, 0x9D:  // NUMEQUAL, NUMEQUALVERIFY
                let b = try number(try pop(&stack))
                let a = try number(try pop(&stack))
                if opcode.rawValue == 0x9D {
                    guard a == b else { throw .invalid("invalid signature: NUMEQUALVERIFY failed") }
                } else {
                    stack.append(a == b ? [1] : [])
                }
            case 0x92:  // 0NOTEQUAL
                stack.append(try number(try pop(&stack)) != 0 ? [1] : [])
            case 0x93, 0x9A, 0x9B:  // ADD, BOOLAND, BOOLOR
                let b = try number(try pop(&stack))
                let a = try number(try pop(&stack))
                switch opcode.rawValue {
                case 0x93: stack.append(Self.encodeNumber(a + b))
                case 0x9A: stack.append(a != 0 && b != 0 ? [1] : [])
                default: stack.append(a != 0 || b != 0 ? [1] : [])
                }
            case 0xA6: stack.append(RIPEMD160.hash(try pop(&stack)))
            case 0xAA: stack.append(SHA256.doubleHash(try pop(&stack)))
            case 0xA8: stack.append(SHA256.hash(try pop(&stack)))
            case 0xA9: stack.append(Hash160.hash(try pop(&stack)))
            case 0xAC, 0xAD:  // CHECKSIG, CHECKSIGVERIFY
                let publicKey = try pop(&stack)
                let signature = try pop(&stack)
                let ok = try checkSignature(
                    signature, publicKey: publicKey, script: script, version: version, index: index, amount: amount,
                    annex: annex)
                if opcode.rawValue == 0xAD {
                    guard ok else { throw .invalid("invalid signature: CHECKSIGVERIFY failed") }
                } else {
                    stack.append(ok ? [1] : [])
                }
            case 0xAE, 0xAF:  // CHECKMULTISIG, CHECKMULTISIGVERIFY
                guard !isTapscript else { throw .invalid("CHECKMULTISIG is disabled in tapscript") }
                let ok = try checkMultisig(&stack, script: script, version: version, index: index, amount: amount)
                if opcode.rawValue == 0xAF {
                    guard ok else { throw .invalid("invalid signature: CHECKMULTISIGVERIFY failed") }
                } else {
                    stack.append(ok ? [1] : [])
                }
            case 0xBA:  // CHECKSIGADD
                guard isTapscript else { throw .invalid("CHECKSIGADD outside tapscript") }
                let publicKey = try pop(&stack)
                let n = try number(try pop(&stack))
                let signature = try pop(&stack)
                let ok = try checkSignature(
                    signature, publicKey: publicKey, script: script, version: version, index: index, amount: amount,
                    annex: annex)
                stack.append(Self.encodeNumber(n + (ok ? 1 : 0)))
            case 0xB1: try checkLockTime(stack, index: index)
            case 0xB2: try checkSequence(stack, index: index)
            case 0xB0, 0xB3...0xB9: throw .inconclusive("an upgradable NOP (\(opcode))")
            default: throw .inconclusive("\(opcode) is not understood here")
            }
        }
        guard conditions.isEmpty else { throw .invalid("IF without ENDIF") }
    }

    private func pop(_ stack: inout [[UInt8]]) throws(Failure) -> [UInt8] {
        guard let top = stack.popLast() else { throw .invalid("invalid signature: the stack is too short") }
        return top
    }

    private func number(_ bytes: [UInt8], maxSize: Int = 4) throws(Failure) -> Int64 {
        guard bytes.count <= maxSize else { throw .invalid("a number longer than \(maxSize) bytes") }
        guard let value = Self.decodeNumber(bytes) else { throw .invalid("a number is not minimally encoded") }
        return value
    }

    // MARK: - Signatures

    private mutating func checkSignature(
        _ signature: [UInt8], publicKey: [UInt8], script: Script, version: SigVersion, index: Int, amount: Amount,
        annex: [UInt8]?
    ) throws(Failure) -> Bool {
        if case .tapscript(let leafHash) = version {
            guard !publicKey.isEmpty else { throw .invalid("an empty public key in tapscript") }
            guard publicKey.count == 32 else { throw .inconclusive("a tapscript key of \(publicKey.count) bytes") }
            if signature.isEmpty { return false }
            let (parsed, type) = try schnorrSignature(signature)
            guard let key = try? XOnlyPublicKey(serialized: publicKey) else {
                throw .invalid("a tapscript key is not a valid point")
            }
            let digest: [UInt8]
            do {
                digest = try cache.taprootSignatureHash(inputIndex: index, type: type, annex: annex, leafHash: leafHash)
            } catch { throw .invalid("taproot sighash: \(error)") }
            guard key.verify(parsed, message: digest) else {
                throw .invalid("invalid signature: a tapscript signature does not verify")
            }
            return true
        }
        guard let key = try? PublicKey(serialized: publicKey), [33, 65].contains(publicKey.count),
            publicKey.count == 33 || publicKey.first == 0x04
        else { throw .invalid("STRICTENC: a public key is not a valid encoding") }
        if case .witnessV0 = version, publicKey.count != 33 {
            throw .invalid("an uncompressed public key in a segwit script")
        }
        if signature.isEmpty { return false }
        guard signature.last == UInt8(SighashType.all.rawValue) else {
            throw .invalid("the signature's sighash type is not SIGHASH_ALL")
        }
        guard let parsed = try? ECDSASignature(der: signature.dropLast()) else {
            throw .invalid("STRICTENC: a signature is not strict DER")
        }
        guard parsed.isLowS else { throw .invalid("LOW_S: a signature has a high S") }
        if case .base = version, script.findAndDelete(Script([.push(signature)])) != script {
            throw .invalid("the script holds the signature (FindAndDelete is forbidden)")
        }
        let digest: [UInt8]
        do {
            switch version {
            case .base:
                digest = try cache.legacySignatureHash(inputIndex: index, scriptCode: script, type: .all)
            case .witnessV0:
                digest = try cache.segwitV0SignatureHash(
                    inputIndex: index, scriptCode: script, amount: amount, type: .all)
            case .tapscript: digest = []
            }
        } catch { throw .invalid("the signature hash: \(error)") }
        guard key.verify(parsed, digest: digest) else {
            throw .invalid("invalid signature: NULLFAIL, an ECDSA signature does not verify")
        }
        return true
    }

    private func schnorrSignature(_ bytes: [UInt8]) throws(Failure) -> (SchnorrSignature, SighashType) {
        let type: SighashType
        switch bytes.count {
        case 64: type = .default
        case 65:
            guard bytes[64] == UInt8(SighashType.all.rawValue) else {
                throw .invalid("the signature's sighash type is not SIGHASH_ALL or DEFAULT")
            }
            type = .all
        default: throw .invalid("invalid signature: a Schnorr signature of \(bytes.count) bytes")
        }
        guard let signature = try? SchnorrSignature(serialized: bytes.prefix(64)) else {
            throw .invalid("invalid signature: not a Schnorr signature")
        }
        return (signature, type)
    }

    private mutating func checkMultisig(
        _ stack: inout [[UInt8]], script: Script, version: SigVersion, index: Int, amount: Amount
    ) throws(Failure) -> Bool {
        let keyCount = try number(try pop(&stack))
        guard (0...20).contains(keyCount) else { throw .invalid("CHECKMULTISIG with \(keyCount) keys") }
        var keys: [[UInt8]] = []
        for _ in 0..<keyCount { keys.append(try pop(&stack)) }
        let signatureCount = try number(try pop(&stack))
        guard (0...keyCount).contains(signatureCount) else { throw .invalid("CHECKMULTISIG with too many signatures") }
        var signatures: [[UInt8]] = []
        for _ in 0..<signatureCount { signatures.append(try pop(&stack)) }
        guard try pop(&stack).isEmpty else { throw .invalid("NULLDUMMY: the CHECKMULTISIG dummy is not empty") }
        // Keys and signatures were popped top first, which is the script's order reversed; Bitcoin Core walks both
        // from the first pushed.
        keys.reverse()
        signatures.reverse()
        var keyIndex = 0
        var signatureIndex = 0
        var success = true
        while success, signatureIndex < signatures.count {
            let signature = signatures[signatureIndex]
            if !signature.isEmpty,
                try checkSignature(
                    signature, publicKey: keys[keyIndex], script: script, version: version, index: index,
                    amount: amount, annex: nil, nullFail: false)
            {
                signatureIndex += 1
            }
            keyIndex += 1
            if signatures.count - signatureIndex > keys.count - keyIndex { success = false }
        }
        if !success, signatures.contains(where: { !$0.isEmpty }) {
            throw .invalid("invalid signature: NULLFAIL, a CHECKMULTISIG signature does not verify")
        }
        return success
    }

    /// CHECKSIG for CHECKMULTISIG: a signature that fails against one key may match a later one.
    private mutating func checkSignature(
        _ signature: [UInt8], publicKey: [UInt8], script: Script, version: SigVersion, index: Int, amount: Amount,
        annex: [UInt8]?, nullFail: Bool
    ) throws(Failure) -> Bool {
        do {
            return try checkSignature(
                signature, publicKey: publicKey, script: script, version: version, index: index, amount: amount,
                annex: annex)
        } catch {
            if case .invalid(let reason) = error, reason.contains("does not verify") { return false }
            throw error
        }
    }

    // MARK: - Time locks (BIP65, BIP112)

    private func checkLockTime(_ stack: [[UInt8]], index: Int) throws(Failure) {
        guard let top = stack.last else { throw .invalid("CHECKLOCKTIMEVERIFY on an empty stack") }
        let required = try number(top, maxSize: 5)
        guard required >= 0 else { throw .invalid("a negative lock time") }
        let lockTime = Int64(transaction.lockTime.rawValue)
        let threshold = Int64(LockTime.threshold)
        guard (required < threshold) == (lockTime < threshold), required <= lockTime else {
            throw .invalid("invalid signature: CHECKLOCKTIMEVERIFY is not satisfied by nLockTime \(lockTime)")
        }
        guard transaction.inputs[index].sequence != .final else {
            throw .invalid("CHECKLOCKTIMEVERIFY with a final nSequence")
        }
    }

    private func checkSequence(_ stack: [[UInt8]], index: Int) throws(Failure) {
        guard let top = stack.last else { throw .invalid("CHECKSEQUENCEVERIFY on an empty stack") }
        let required = try number(top, maxSize: 5)
        guard required >= 0 else { throw .invalid("a negative relative lock time") }
        let disable: Int64 = 1 << 31
        if required & disable != 0 { return }
        let sequence = Int64(transaction.inputs[index].sequence.rawValue)
        guard transaction.version >= 2, sequence & disable == 0 else {
            throw .invalid("invalid signature: CHECKSEQUENCEVERIFY needs version 2 and an enabled nSequence")
        }
        let mask: Int64 = (1 << 22) | 0xFFFF
        let typeFlag: Int64 = 1 << 22
        guard (required & typeFlag) == (sequence & typeFlag), required & mask <= sequence & mask else {
            throw .invalid("invalid signature: CHECKSEQUENCEVERIFY is not satisfied by nSequence \(sequence)")
        }
    }

    // MARK: - Helpers

    static func isTrue(_ bytes: [UInt8]) -> Bool {
        for (offset, byte) in bytes.enumerated() where byte != 0 {
            return !(offset == bytes.count - 1 && byte == 0x80)
        }
        return false
    }

    static func isOpSuccess(_ code: UInt8) -> Bool {
        code == 80 || code == 98 || (126...129).contains(code) || (131...134).contains(code)
            || (137...138).contains(code) || (141...142).contains(code) || (149...153).contains(code)
            || (187...254).contains(code)
    }

    static func isMinimalPush(_ opcode: Opcode, _ data: [UInt8]) -> Bool {
        if data.isEmpty { return opcode == .op0 }
        if data.count == 1, (1...16).contains(data[0]) { return false }
        if data.count == 1, data[0] == 0x81 { return false }
        if data.count <= 75 { return Int(opcode.rawValue) == data.count }
        if data.count <= 255 { return opcode == .pushData1 }
        if data.count <= 65535 { return opcode == .pushData2 }
        return true
    }

    /// A minimally encoded script number (CScriptNum), or nil when it is not minimal.
    static func decodeNumber(_ bytes: [UInt8]) -> Int64? {
        guard let last = bytes.last else { return 0 }
        if last & 0x7F == 0, bytes.count == 1 || bytes[bytes.count - 2] & 0x80 == 0 { return nil }
        var value: Int64 = 0
        for (offset, byte) in bytes.enumerated() { value |= Int64(byte) << (8 * offset) }
        if last & 0x80 != 0 {
            return -(value & ~(Int64(0x80) << (8 * (bytes.count - 1))))
        }
        return value
    }

    static func encodeNumber(_ value: Int64) -> [UInt8] {
        if value == 0 { return [] }
        var magnitude = value.magnitude
        var out: [UInt8] = []
        while magnitude > 0 {
            out.append(UInt8(magnitude & 0xFF))
            magnitude >>= 8
        }
        if out[out.count - 1] & 0x80 != 0 {
            out.append(value < 0 ? 0x80 : 0)
        } else if value < 0 {
            out[out.count - 1] |= 0x80
        }
        return out
    }

    static func witnessProgram(_ script: Script) -> (version: Int, program: [UInt8])? {
        let bytes = script.bytes
        guard (4...42).contains(bytes.count), Int(bytes[1]) == bytes.count - 2 else { return nil }
        switch bytes[0] {
        case 0x00: return (0, Array(bytes[2...]))
        case 0x51...0x60: return (Int(bytes[0]) - 0x50, Array(bytes[2...]))
        default: return nil
        }
    }

    static func isP2SH(_ script: Script) -> Bool {
        script.bytes.count == 23 && script.bytes[0] == 0xA9 && script.bytes[1] == 0x14 && script.bytes[22] == 0x87
    }
}
