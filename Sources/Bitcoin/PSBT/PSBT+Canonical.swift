import BitcoinCrypto

/// Bitcoin Core's serialization order of PSBT fields, used whenever Airlock changes a map (signing, combining,
/// finalizing), so that its output matches Core's byte for byte.
///
/// Maps nobody changed keep the order they came in.
package enum PSBTCanonicalOrder {
    private static let inputRanks: [UInt64: Int] = {
        let order: [UInt64] = [
            0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0A, 0x0B, 0x0C, 0x0D, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
            0x1A, 0x1B, 0x1C, 0x07, 0x08, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0xFC,
        ]
        return Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
    }()
    private static let outputRanks: [UInt64: Int] = {
        let order: [UInt64] = [0x00, 0x01, 0x02, 0x03, 0x04, 0xFC, 0x05, 0x06, 0x07, 0x08]
        return Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
    }()
    private static let globalRanks: [UInt64: Int] = {
        let order: [UInt64] = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0xFB, 0xFC]
        return Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
    }()

    /// The input fields Core writes only while the input is not finalized.
    package static let inputSigningFields: Set<UInt64> = [
        0x02, 0x03, 0x04, 0x05, 0x06, 0x0A, 0x0B, 0x0C, 0x0D, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x1A, 0x1B, 0x1C,
    ]

    static func sortInput(_ map: inout PSBTMap) {
        if map.contains(PSBTKeyType.Input.finalScriptSig) || map.contains(PSBTKeyType.Input.finalScriptWitness) {
            map.entries.removeAll { inputSigningFields.contains($0.keyType) }
        }
        map.entries.sort { a, b in
            let ra = inputRanks[a.keyType] ?? Int.max
            let rb = inputRanks[b.keyType] ?? Int.max
            if ra != rb { return ra < rb }
            if ra == Int.max { return a.key.lexicographicallyPrecedes(b.key) }
            switch a.keyType {
            case PSBTKeyType.Input.partialSig:
                // Core keys partial signatures by CKeyID, the HASH160 of the public key.
                return Hash160.hash(a.keyData).lexicographicallyPrecedes(Hash160.hash(b.keyData))
            case PSBTKeyType.Input.tapLeafScript:
                // Core keys leaf scripts by (script, leaf version), then control blocks shortest first.
                let sa = Array(a.value.dropLast())
                let sb = Array(b.value.dropLast())
                if sa != sb { return sa.lexicographicallyPrecedes(sb) }
                if a.value.last != b.value.last { return (a.value.last ?? 0) < (b.value.last ?? 0) }
                if a.keyData.count != b.keyData.count { return a.keyData.count < b.keyData.count }
                return a.keyData.lexicographicallyPrecedes(b.keyData)
            case PSBTKeyType.Input.musig2PubNonce, PSBTKeyType.Input.musig2PartialSig:
                // Core keys these by (aggregate key, leaf hash), then participant key.
                let ka = Array(a.keyData.dropFirst(33)) + Array(a.keyData.prefix(33))
                let kb = Array(b.keyData.dropFirst(33)) + Array(b.keyData.prefix(33))
                return ka.lexicographicallyPrecedes(kb)
            default:
                return a.key.lexicographicallyPrecedes(b.key)
            }
        }
    }

    static func sortOutput(_ map: inout PSBTMap) {
        map.entries.sort { a, b in
            let ra = outputRanks[a.keyType] ?? Int.max
            let rb = outputRanks[b.keyType] ?? Int.max
            if ra != rb { return ra < rb }
            return a.key.lexicographicallyPrecedes(b.key)
        }
    }

    static func sortGlobal(_ map: inout PSBTMap) {
        map.entries.sort { a, b in
            let ra = globalRanks[a.keyType] ?? Int.max
            let rb = globalRanks[b.keyType] ?? Int.max
            if ra != rb { return ra < rb }
            if a.keyType == PSBTKeyType.Global.xpub {
                // Core keys global xpubs by their key origin (fingerprint bytes, then path indexes), then the xpub.
                let oa = KeyOrigin(psbtBytes: a.value)
                let ob = KeyOrigin(psbtBytes: b.value)
                if let oa, let ob, oa != ob {
                    let fa = oa.fingerprint.serialized()
                    let fb = ob.fingerprint.serialized()
                    if fa != fb { return fa.lexicographicallyPrecedes(fb) }
                    return oa.path.components.map(\.rawValue).lexicographicallyPrecedes(
                        ob.path.components.map(\.rawValue))
                }
            }
            return a.key.lexicographicallyPrecedes(b.key)
        }
    }
}

extension PSBT {
    /// Puts every map in Bitcoin Core's serialization order, dropping signing fields of finalized inputs as Core does.
    public mutating func canonicalize() {
        PSBTCanonicalOrder.sortGlobal(&global)
        for index in inputs.indices { PSBTCanonicalOrder.sortInput(&inputs[index].map) }
        for index in outputs.indices { PSBTCanonicalOrder.sortOutput(&outputs[index].map) }
    }
}
