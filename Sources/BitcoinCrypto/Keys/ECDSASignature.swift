internal import CSecp256k1

/// An ECDSA signature, kept as 64-byte compact r ‖ s; DER (BIP66 strict) in and out.
public struct ECDSASignature: Sendable, Hashable {
    /// r ‖ s, 32 bytes each, big-endian.
    public let compact: [UInt8]

    init(uncheckedCompact compact: [UInt8]) { self.compact = compact }

    /// Parses a 64-byte compact signature.
    ///
    /// - Throws: `KeyError.invalidLength` or `KeyError.invalidSignature` when r or s is not below the order.
    public init(compact bytes: some Collection<UInt8>) throws(KeyError) {
        let input = Array(bytes)
        guard input.count == 64 else { throw .invalidLength(expected: 64, actual: input.count) }
        var sig = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_compact(Secp256k1Context.shared, &sig, input) == 1 else {
            throw .invalidSignature
        }
        self.compact = input
    }

    /// Parses a strictly DER-encoded signature (BIP66), without the sighash byte.
    ///
    /// - Throws: `KeyError.invalidDER`.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0066.mediawiki
    public init(der bytes: some Collection<UInt8>) throws(KeyError) {
        let input = Array(bytes)
        guard Self.isStrictDER(input) else { throw .invalidDER }
        var sig = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_der(Secp256k1Context.shared, &sig, input, input.count) == 1 else {
            throw .invalidDER
        }
        var out = [UInt8](repeating: 0, count: 64)
        _ = secp256k1_ecdsa_signature_serialize_compact(Secp256k1Context.shared, &out, &sig)
        self.compact = out
    }

    /// The DER encoding (without a sighash byte).
    public var der: [UInt8] {
        var sig = secp256k1_ecdsa_signature()
        let parsed = secp256k1_ecdsa_signature_parse_compact(Secp256k1Context.shared, &sig, compact)
        precondition(parsed == 1, "a validated compact signature failed to parse")
        var out = [UInt8](repeating: 0, count: 72)
        var length = 72
        let code = secp256k1_ecdsa_signature_serialize_der(Secp256k1Context.shared, &out, &length, &sig)
        precondition(code == 1, "secp256k1_ecdsa_signature_serialize_der failed")
        return Array(out.prefix(length))
    }

    /// Whether s is at most half the order (BIP62 low-S, required by Bitcoin's standardness rules).
    public var isLowS: Bool {
        var sig = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_compact(Secp256k1Context.shared, &sig, compact) == 1 else { return false }
        var normalized = secp256k1_ecdsa_signature()
        return secp256k1_ecdsa_signature_normalize(Secp256k1Context.shared, &normalized, &sig) == 0
    }

    /// Bitcoin Core's IsValidSignatureEncoding (BIP66) over a DER signature without the sighash byte.
    static func isStrictDER(_ sig: [UInt8]) -> Bool {
        guard sig.count >= 8, sig.count <= 72, sig[0] == 0x30, Int(sig[1]) == sig.count - 2, sig[2] == 0x02 else {
            return false
        }
        let lenR = Int(sig[3])
        guard lenR > 0, 5 + lenR < sig.count, sig[4 + lenR] == 0x02 else { return false }
        let lenS = Int(sig[5 + lenR])
        guard lenS > 0, lenR + lenS + 6 == sig.count else { return false }
        if sig[4] & 0x80 != 0 { return false }
        if lenR > 1, sig[4] == 0, sig[5] & 0x80 == 0 { return false }
        let s = 6 + lenR
        if sig[s] & 0x80 != 0 { return false }
        if lenS > 1, sig[s] == 0, sig[s + 1] & 0x80 == 0 { return false }
        return true
    }
}

/// A BIP340 Schnorr signature: 64 bytes.
public struct SchnorrSignature: Sendable, Hashable {
    /// R.x ‖ s.
    public let bytes: [UInt8]

    init(uncheckedBytes bytes: [UInt8]) { self.bytes = bytes }

    /// Takes 64 bytes as a Schnorr signature (validity is decided by verification).
    ///
    /// - Throws: `KeyError.invalidLength`.
    public init(serialized bytes: some Collection<UInt8>) throws(KeyError) {
        let input = Array(bytes)
        guard input.count == 64 else { throw .invalidLength(expected: 64, actual: input.count) }
        self.bytes = input
    }
}
