internal import CSecp256k1

/// The ECDSA anti-exfil protocol (sign-to-contract), as secp256k1-zkp's `ecdsa_s2c` module defines it and Jade and
/// BitBox02 use it: the host contributes nonce entropy the signer cannot choose, and checks every signature for it.
///
/// 1. The host draws 32 bytes of entropy ρ and sends `hostCommitment(ρ)` = TaggedSHA256("s2c/ecdsa/data", ρ).
/// 2. The signer answers `signerCommitment` R1 = k0·G, where k0 is the RFC6979 nonce of (key, digest) with the host
///    commitment as its extra data (secp256k1-zkp's `secp256k1_ecdsa_anti_exfil_signer_commit`).
/// 3. The host reveals ρ.
/// 4. The signer signs with k = k0 + TaggedSHA256("s2c/ecdsa/point", ser33(R1) ‖ ρ) mod n (`secp256k1_anti_exfil_sign`).
/// 5. The host checks r == x(R1 + t·G) mod n and the signature itself (`secp256k1_anti_exfil_host_verify`).
///
/// The nonce is made through libsecp256k1's nonce-function hook of `secp256k1_ecdsa_sign` (Debian's libsecp256k1
/// has no `ecdsa_s2c` module): the hook calls libsecp256k1's own RFC6979 function and adds the tweak with
/// `secp256k1_ec_seckey_tweak_add`; the signature arithmetic stays libsecp256k1's.
/// - SeeAlso: https://github.com/BlockstreamResearch/secp256k1-zkp/blob/master/include/secp256k1_ecdsa_s2c.h
public enum AntiExfil {
    /// The tag of the host commitment (and of the signer's nonce extra data).
    public static let dataTag = TaggedHash(tag: "s2c/ecdsa/data")
    /// The tag of the nonce tweak.
    public static let pointTag = TaggedHash(tag: "s2c/ecdsa/point")

    /// The host's commitment to its entropy: TaggedSHA256("s2c/ecdsa/data", entropy).
    ///
    /// - Throws: `KeyError.invalidLength` when `entropy` is not 32 bytes.
    public static func hostCommitment(entropy: some Collection<UInt8>) throws(KeyError) -> [UInt8] {
        let bytes = Array(entropy)
        guard bytes.count == 32 else { throw .invalidLength(expected: 32, actual: bytes.count) }
        return dataTag.hash(bytes)
    }

    /// The nonce tweak t = TaggedSHA256("s2c/ecdsa/point", ser33(R1) ‖ entropy).
    static func tweak(signerCommitment: PublicKey, entropy: [UInt8]) -> [UInt8] {
        pointTag.hash(signerCommitment.compressed + entropy)
    }

    /// The signer's commitment R1 = k0·G for `digest` under `key`, k0 the RFC6979 nonce with `hostCommitment` as
    /// extra data (the first valid one of libsecp256k1's attempts, as `secp256k1_ecdsa_anti_exfil_signer_commit`).
    ///
    /// - Throws: `KeyError.invalidLength` when `digest` or `hostCommitment` is not 32 bytes.
    public static func signerCommitment(
        key: PrivateKey, digest: some Collection<UInt8>, hostCommitment: some Collection<UInt8>
    ) throws(KeyError) -> PublicKey {
        let message = Array(digest)
        let extra = Array(hostCommitment)
        guard message.count == 32 else { throw .invalidLength(expected: 32, actual: message.count) }
        guard extra.count == 32 else { throw .invalidLength(expected: 32, actual: extra.count) }
        let nonce = SecretBytes(count: 32)
        var attempt: UInt32 = 0
        while true {
            let code: Int32 = key.secret.withBytePointer { secret, _ in
                nonce.withMutableBytePointer { out, _ in
                    extra.withUnsafeBytes { data in
                        guard
                            secp256k1_nonce_function_rfc6979?(
                                out, message, secret, nil, UnsafeMutableRawPointer(mutating: data.baseAddress), attempt)
                                == 1
                        else { return 0 }
                        return secp256k1_ec_seckey_verify(Secp256k1Context.shared, out)
                    }
                }
            }
            if code == 1, let k0 = try? PrivateKey(secret: nonce) { return k0.publicKey }
            attempt += 1
        }
    }

    /// Signs `digest` with the anti-exfil nonce for `entropy` (low-S, no low-R grinding: the nonce is fixed).
    ///
    /// The host commitment the nonce derives from is recomputed from `entropy`, as
    /// `secp256k1_anti_exfil_sign` does, so a host that reveals other entropy than it committed to gets a signature
    /// that fails its own check, never a second signature with the same nonce.
    ///
    /// - Throws: `KeyError.invalidLength` when `digest` or `entropy` is not 32 bytes; `.invalidTweak` in the
    ///   negligible case where the tweaked nonce is out of range.
    public static func sign(key: PrivateKey, digest: some Collection<UInt8>, entropy: some Collection<UInt8>)
        throws(KeyError) -> ECDSASignature
    {
        let message = Array(digest)
        guard message.count == 32 else { throw .invalidLength(expected: 32, actual: message.count) }
        var context = NonceContext(entropy: Array(entropy))
        guard context.entropy.count == 32 else { throw .invalidLength(expected: 32, actual: context.entropy.count) }
        context.hostCommitment = dataTag.hash(context.entropy)
        defer { SecretBytes.wipe(&context.entropy) }
        var signature = secp256k1_ecdsa_signature()
        let code = key.secret.withBytePointer { secret, _ in
            withUnsafeMutablePointer(to: &context) { pointer in
                secp256k1_ecdsa_sign(Secp256k1Context.shared, &signature, message, secret, antiExfilNonce, pointer)
            }
        }
        guard code == 1 else { throw .invalidTweak }
        var compact = [UInt8](repeating: 0, count: 64)
        _ = secp256k1_ecdsa_signature_serialize_compact(Secp256k1Context.shared, &compact, &signature)
        return try ECDSASignature(compact: compact)
    }

    /// The host's check: the signature verifies for `digest` under `publicKey` and its R is R1 + t·G, the nonce the
    /// signer committed to tweaked by the host's entropy (`secp256k1_anti_exfil_host_verify`).
    public static func verify(
        _ signature: ECDSASignature, digest: some Collection<UInt8>, publicKey: PublicKey,
        entropy: some Collection<UInt8>,
        signerCommitment: PublicKey
    ) -> Bool {
        let rho = Array(entropy)
        guard rho.count == 32, publicKey.verify(signature, digest: digest),
            let point = try? signerCommitment.adding(tweak: tweak(signerCommitment: signerCommitment, entropy: rho))
        else { return false }
        return GroupOrder.reduced(Array(point.compressed.dropFirst())) == Array(signature.compact.prefix(32))
    }
}

/// What the nonce hook needs: the host's entropy and its commitment (the RFC6979 extra data).
private struct NonceContext {
    var entropy: [UInt8]
    var hostCommitment: [UInt8] = []
}

/// libsecp256k1's nonce-function hook for anti-exfil signing.
///
/// k0 from libsecp256k1's RFC6979 function with the host commitment as extra data, then
/// k = k0 + TaggedSHA256("s2c/ecdsa/point", ser33(k0·G) ‖ entropy). An invalid k0
/// is handed back unchanged, so libsecp256k1 rejects it and asks again with the next attempt number, as
/// secp256k1-zkp's signing loop does.
private let antiExfilNonce: secp256k1_nonce_function = { nonce32, msg32, key32, algo16, data, attempt in
    guard let nonce32, let data else { return 0 }
    let context = data.assumingMemoryBound(to: NonceContext.self).pointee
    let made = context.hostCommitment.withUnsafeBytes { extra in
        secp256k1_nonce_function_rfc6979?(
            nonce32, msg32, key32, algo16, UnsafeMutableRawPointer(mutating: extra.baseAddress), attempt)
    }
    guard made == .some(1) else { return 0 }
    var point = secp256k1_pubkey()
    guard secp256k1_ec_pubkey_create(Secp256k1Context.shared, &point, nonce32) == 1 else { return 1 }
    var serialized = [UInt8](repeating: 0, count: 33)
    var length = 33
    _ = secp256k1_ec_pubkey_serialize(
        Secp256k1Context.shared, &serialized, &length, &point, UInt32(SECP256K1_EC_COMPRESSED))
    let tweak = AntiExfil.pointTag.hash(serialized + context.entropy)
    return secp256k1_ec_seckey_tweak_add(Secp256k1Context.shared, nonce32, tweak)
}
