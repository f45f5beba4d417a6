internal import CSecp256k1

/// An ECDSA signature with its recovery id (0…3), as Ethereum uses: r ‖ s and the id from which the signer's public
/// key can be recovered.
///
/// - SeeAlso: https://github.com/bitcoin-core/secp256k1/blob/master/include/secp256k1_recovery.h
public struct RecoverableSignature: Sendable, Hashable {
    /// r ‖ s, 32 bytes each, big-endian.
    public let compact: [UInt8]
    /// The recovery id: bit 0 is the parity of R's y, bit 1 says R's x overflowed the order (never in practice).
    public let recoveryID: UInt8

    /// Parses 64 bytes r ‖ s and a recovery id.
    ///
    /// - Throws: `KeyError.invalidLength`, or `KeyError.invalidSignature` when r or s is not below the order or the
    ///   recovery id is above 3.
    public init(compact bytes: some Collection<UInt8>, recoveryID: UInt8) throws(KeyError) {
        let input = Array(bytes)
        guard input.count == 64 else { throw .invalidLength(expected: 64, actual: input.count) }
        guard recoveryID <= 3 else { throw .invalidSignature }
        var sig = secp256k1_ecdsa_recoverable_signature()
        guard
            secp256k1_ecdsa_recoverable_signature_parse_compact(
                Secp256k1Context.shared, &sig, input, Int32(recoveryID)) == 1
        else { throw .invalidSignature }
        self.compact = input
        self.recoveryID = recoveryID
    }

    init(uncheckedCompact compact: [UInt8], recoveryID: UInt8) {
        self.compact = compact
        self.recoveryID = recoveryID
    }

    /// r, 32 bytes.
    public var r: [UInt8] { Array(compact.prefix(32)) }
    /// s, 32 bytes.
    public var s: [UInt8] { Array(compact.suffix(32)) }

    /// The public key that made this signature over the 32-byte `digest`.
    ///
    /// - Throws: `KeyError.invalidLength` for a digest that is not 32 bytes, `KeyError.invalidSignature` when no key
    ///   recovers (the signature is not valid for any key).
    public func recoverPublicKey(digest: some Collection<UInt8>) throws(KeyError) -> PublicKey {
        let message = Array(digest)
        guard message.count == 32 else { throw .invalidLength(expected: 32, actual: message.count) }
        var sig = secp256k1_ecdsa_recoverable_signature()
        guard
            secp256k1_ecdsa_recoverable_signature_parse_compact(
                Secp256k1Context.shared, &sig, compact, Int32(recoveryID)) == 1
        else { throw .invalidSignature }
        var raw = secp256k1_pubkey()
        guard secp256k1_ecdsa_recover(Secp256k1Context.shared, &raw, &sig, message) == 1 else {
            throw .invalidSignature
        }
        return PublicKey(raw: raw)
    }
}

extension PrivateKey {
    /// Signs a 32-byte digest with recoverable ECDSA: plain RFC 6979 (no extra entropy, no low-R grinding) and low-S,
    /// so the signature equals every other RFC 6979 wallet's byte for byte.
    ///
    /// - Throws: `KeyError.invalidLength` when `digest` is not 32 bytes.
    /// - SeeAlso: https://www.rfc-editor.org/rfc/rfc6979
    public func signRecoverable(digest: some Collection<UInt8>) throws(KeyError) -> RecoverableSignature {
        let message = Array(digest)
        guard message.count == 32 else { throw .invalidLength(expected: 32, actual: message.count) }
        var sig = secp256k1_ecdsa_recoverable_signature()
        let code = secret.withBytePointer { key, _ in
            secp256k1_ecdsa_sign_recoverable(
                Secp256k1Context.shared, &sig, message, key, secp256k1_nonce_function_rfc6979, nil)
        }
        precondition(code == 1, "secp256k1_ecdsa_sign_recoverable failed on a validated key")
        var compact = [UInt8](repeating: 0, count: 64)
        var recid: Int32 = 0
        let serialized = secp256k1_ecdsa_recoverable_signature_serialize_compact(
            Secp256k1Context.shared, &compact, &recid, &sig)
        precondition(serialized == 1, "secp256k1_ecdsa_recoverable_signature_serialize_compact failed")
        return RecoverableSignature(uncheckedCompact: compact, recoveryID: UInt8(recid))
    }
}
