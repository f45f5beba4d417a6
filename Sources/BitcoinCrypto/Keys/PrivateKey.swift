internal import CSecp256k1
internal import CSodium

/// A secp256k1 private key: 32 secret bytes, non-zero and below the curve order, held in `SecretBytes`.
public struct PrivateKey: Sendable {
    /// The 32 secret bytes.
    public let secret: SecretBytes

    /// Validates 32 secret bytes as a private key.
    ///
    /// - Throws: `KeyError.invalidLength` or `KeyError.invalidPrivateKey` (zero or not below the order).
    public init(secret: SecretBytes) throws(KeyError) {
        guard secret.count == 32 else { throw .invalidLength(expected: 32, actual: secret.count) }
        // One secp256k1_keypair_create (it verifies the secret and multiplies once, as secp256k1_ec_pubkey_create
        // would) gives both the public key and the key pair that Schnorr signing and the taproot tweak start from.
        let pair = SecretBytes(count: MemoryLayout<secp256k1_keypair>.size)
        var raw = secp256k1_pubkey()
        let code: Int32 = pair.withMutableBytePointer { pointer, _ in
            pointer.withMemoryRebound(to: secp256k1_keypair.self, capacity: 1) { keypair in
                let created = secret.withBytePointer { bytes, _ in
                    secp256k1_keypair_create(Secp256k1Context.shared, keypair, bytes)
                }
                guard created == 1 else { return 0 }
                return secp256k1_keypair_pub(Secp256k1Context.shared, &raw, keypair)
            }
        }
        guard code == 1 else { throw .invalidPrivateKey }
        self.secret = secret
        self.keyPair = pair
        self.publicKey = PublicKey(raw: raw)
    }

    /// A fresh random private key from the operating system's random source.
    public static func random() -> PrivateKey {
        while true {
            if let key = try? PrivateKey(secret: SecureRandom.secret(32)) { return key }
        }
    }

    /// The compressed public key.
    ///
    /// Computed once, when the key is made: every use of a private key here needs it (BIP32 children, fingerprints,
    /// the signer's check that a provider's key is the one the PSBT names), and secp256k1_ec_pubkey_create is the
    /// most expensive step of signing an input after the signature itself.
    public let publicKey: PublicKey

    /// libsecp256k1's key pair (the secret and its point), made with the public key; nil only for a negated key.
    ///
    /// Taproot signing tweaks a copy of it and Schnorr signing uses it as it is, so neither multiplies again
    /// (issue 19: the key-path floor is keypair_create + keypair_xonly_tweak_add + schnorrsig_sign, and the
    /// separate public-key computation before them was a fourth multiplication per input).
    let keyPair: SecretBytes?

    /// The x-only public key (BIP340).
    public var xOnlyPublicKey: XOnlyPublicKey { publicKey.xOnly.key }

    /// This key plus `tweak` modulo the curve order (BIP32 CKDpriv).
    ///
    /// - Throws: `KeyError.invalidTweak` when the tweak is not below the order or the sum is zero.
    public func adding(tweak: some Collection<UInt8>) throws(KeyError) -> PrivateKey {
        let tweakBytes = Array(tweak)
        guard tweakBytes.count == 32 else { throw .invalidLength(expected: 32, actual: tweakBytes.count) }
        let out = SecretBytes(count: 32)
        let code = out.withMutableBytePointer { target, _ in
            secret.withBytePointer { source, _ in target.update(from: source, count: 32) }
            return secp256k1_ec_seckey_tweak_add(Secp256k1Context.shared, target, tweakBytes)
        }
        guard code == 1 else { throw .invalidTweak }
        return try PrivateKey(secret: out)
    }

    /// This key plus a secret `tweak` (BIP32 CKDpriv, where the tweak is the secret left half of an HMAC).
    public func adding(secretTweak tweak: SecretBytes) throws(KeyError) -> PrivateKey {
        guard tweak.count == 32 else { throw .invalidLength(expected: 32, actual: tweak.count) }
        let out = SecretBytes(count: 32)
        let code = out.withMutableBytePointer { target, _ in
            secret.withBytePointer { source, _ in target.update(from: source, count: 32) }
            return tweak.withBytePointer { t, _ in secp256k1_ec_seckey_tweak_add(Secp256k1Context.shared, target, t) }
        }
        guard code == 1 else { throw .invalidTweak }
        return try PrivateKey(secret: out)
    }

    /// The negated key (n - k).
    public func negated() -> PrivateKey {
        let out = SecretBytes(count: 32)
        let code = out.withMutableBytePointer { target, _ in
            secret.withBytePointer { source, _ in target.update(from: source, count: 32) }
            return secp256k1_ec_seckey_negate(Secp256k1Context.shared, target)
        }
        precondition(code == 1, "secp256k1_ec_seckey_negate failed on a validated key")
        // The negation of a valid key is valid, and its public key is -P: the same x with the other parity, which
        // costs a point decompression instead of a multiplication (taproot signing negates every other key).
        var flipped = publicKey.compressed
        flipped[0] ^= 0x01
        guard let negatedPublicKey = try? PublicKey(serialized: flipped) else {
            return (try? PrivateKey(secret: out)) ?? self
        }
        return PrivateKey(validatedSecret: out, publicKey: negatedPublicKey)
    }

    /// A key from a secret already known valid and its public key (for derived keys whose point is known).
    private init(validatedSecret: SecretBytes, publicKey: PublicKey) {
        self.secret = validatedSecret
        self.publicKey = publicKey
        self.keyPair = nil
    }

    /// Signs a 32-byte digest with ECDSA: deterministic nonce (RFC6979), low-S, and low-R grinding as Bitcoin Core
    /// does (retrying with an extra-entropy counter until R fits in 32 bytes, which saves a byte of DER).
    ///
    /// `grindLowR: false` gives the plain RFC6979 signature, as signers before Bitcoin Core 0.17 made (only to
    /// reproduce old test vectors).
    /// - Throws: `KeyError.invalidLength` when `digest` is not 32 bytes.
    /// - SeeAlso: https://github.com/bitcoin/bitcoin/blob/master/src/key.cpp (CKey::Sign, grind)
    public func signECDSA(digest: some Collection<UInt8>, grindLowR: Bool = true) throws(KeyError) -> ECDSASignature {
        let message = Array(digest)
        guard message.count == 32 else { throw .invalidLength(expected: 32, actual: message.count) }
        var signature = secp256k1_ecdsa_signature()
        var counter: UInt32 = 0
        var extraEntropy = [UInt8](repeating: 0, count: 32)
        while true {
            let code = secret.withBytePointer { key, _ in
                extraEntropy.withUnsafeBytes { entropy in
                    secp256k1_ecdsa_sign(
                        Secp256k1Context.shared, &signature, message, key, secp256k1_nonce_function_rfc6979,
                        counter == 0 ? nil : entropy.baseAddress
                    )
                }
            }
            precondition(code == 1, "secp256k1_ecdsa_sign failed on a validated key")
            var compact = [UInt8](repeating: 0, count: 64)
            _ = secp256k1_ecdsa_signature_serialize_compact(Secp256k1Context.shared, &compact, &signature)
            if compact[0] < 0x80 || !grindLowR {
                return ECDSASignature(uncheckedCompact: compact)
            }
            counter += 1
            extraEntropy[0] = UInt8(truncatingIfNeeded: counter)
            extraEntropy[1] = UInt8(truncatingIfNeeded: counter >> 8)
            extraEntropy[2] = UInt8(truncatingIfNeeded: counter >> 16)
            extraEntropy[3] = UInt8(truncatingIfNeeded: counter >> 24)
        }
    }

    /// Signs `message` with BIP340 Schnorr using `auxiliaryRandomness` (32 bytes; fresh random bytes by default).
    ///
    /// - Throws: `KeyError.invalidLength` when the auxiliary randomness is not 32 bytes.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0340.mediawiki
    public func signSchnorr(
        message: some Collection<UInt8>,
        auxiliaryRandomness: [UInt8] = SecureRandom.bytes(32)
    ) throws(KeyError) -> SchnorrSignature {
        guard auxiliaryRandomness.count == 32 else {
            throw .invalidLength(expected: 32, actual: auxiliaryRandomness.count)
        }
        var keypair = secp256k1_keypair()
        defer { sodium_memzero(&keypair, MemoryLayout<secp256k1_keypair>.size) }
        if let keyPair {
            keyPair.withBytePointer { pointer, _ in
                withUnsafeMutableBytes(of: &keypair) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: target.count))
                }
            }
        } else {
            let created = secret.withBytePointer { key, _ in
                secp256k1_keypair_create(Secp256k1Context.shared, &keypair, key)
            }
            precondition(created == 1, "secp256k1_keypair_create failed on a validated key")
        }
        let messageBytes = Array(message)
        var signature = [UInt8](repeating: 0, count: 64)
        var extra = secp256k1_schnorrsig_extraparams()
        extra.magic = (0xDA, 0x6F, 0xB3, 0x8C)  // SECP256K1_SCHNORRSIG_EXTRAPARAMS_MAGIC
        let code = auxiliaryRandomness.withUnsafeBytes { aux in
            extra.ndata = UnsafeMutableRawPointer(mutating: aux.baseAddress)
            return secp256k1_schnorrsig_sign_custom(
                Secp256k1Context.shared, &signature, messageBytes, messageBytes.count, &keypair, &extra
            )
        }
        precondition(code == 1, "secp256k1_schnorrsig_sign_custom failed on a validated key")
        return SchnorrSignature(uncheckedBytes: signature)
    }
}

extension PrivateKey: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "PrivateKey(<redacted>)" }
    public var debugDescription: String { description }
}
