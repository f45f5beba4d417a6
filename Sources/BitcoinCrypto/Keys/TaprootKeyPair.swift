internal import CSecp256k1
internal import CSodium

/// A BIP340 key pair tweaked for a taproot output's key path (BIP341), ready to sign.
///
/// Made with libsecp256k1's key-pair functions: one `secp256k1_keypair_create`, one
/// `secp256k1_keypair_xonly_tweak_add` (which negates for an odd y itself), and the output key read back from the pair,
/// so signing a key-path input costs the curve operations the library needs and no more (the earlier path negated and
/// tweaked a `PrivateKey`, each step computing a public key, then built the key pair again to sign). The 96-byte pair
/// holds the secret: it lives in `SecretBytes`.
public struct TaprootKeyPair: Sendable {
    private let pair: SecretBytes

    /// The tweaked output key Q, the key a P2TR output commits to.
    public let outputKey: XOnlyPublicKey

    /// The pair for `privateKey` as a taproot internal key, tweaked with `merkleRoot` (nil: a key-path-only output).
    ///
    /// - Throws: `KeyError.invalidTweak` in the negligible case where the tweak is out of range.
    public init(internalKey privateKey: PrivateKey, merkleRoot: [UInt8]?) throws(KeyError) {
        try self.init(
            secret: privateKey.secret, keyPair: privateKey.keyPair, internalKey: privateKey.xOnlyPublicKey,
            merkleRoot: merkleRoot)
    }

    /// The pair for 32 secret bytes as a taproot internal key: the internal key is read from the key pair, so this is
    /// exactly libsecp256k1's key-pair creation and tweak (airlock-bench times it as the signing floor).
    ///
    /// - Throws: `KeyError.invalidLength`, `.invalidPrivateKey`, or `.invalidTweak`.
    public init(internalSecret secret: SecretBytes, merkleRoot: [UInt8]?) throws(KeyError) {
        try self.init(secret: secret, keyPair: nil, internalKey: nil, merkleRoot: merkleRoot)
    }

    /// With `keyPair` (the private key's own pair, made with its public key), a copy of it is tweaked and no key pair
    /// is created: the multiplication was already paid for when the key was made.
    private init(
        secret: SecretBytes, keyPair made: SecretBytes?, internalKey known: XOnlyPublicKey?, merkleRoot: [UInt8]?
    ) throws(KeyError) {
        guard secret.count == 32 else { throw .invalidLength(expected: 32, actual: secret.count) }
        let pair = SecretBytes(count: MemoryLayout<secp256k1_keypair>.size)
        var output = secp256k1_xonly_pubkey()
        let code: Int32 = pair.withMutableBytePointer { pointer, _ in
            pointer.withMemoryRebound(to: secp256k1_keypair.self, capacity: 1) { keypair in
                if let made, made.count == MemoryLayout<secp256k1_keypair>.size {
                    made.withBytePointer { source, count in
                        UnsafeMutableRawPointer(keypair).copyMemory(from: source, byteCount: count)
                    }
                } else {
                    let created = secret.withBytePointer { bytes, _ in
                        secp256k1_keypair_create(Secp256k1Context.shared, keypair, bytes)
                    }
                    guard created == 1 else { return -1 }
                }
                var parity: Int32 = 0
                let internalKey = known?.bytes ?? Self.xOnlyBytes(of: keypair)
                let tweak = TaprootTweak.tweak(
                    internalKey: XOnlyPublicKey(validated: internalKey), merkleRoot: merkleRoot)
                guard secp256k1_keypair_xonly_tweak_add(Secp256k1Context.shared, keypair, tweak) == 1 else {
                    return 0
                }
                return secp256k1_keypair_xonly_pub(Secp256k1Context.shared, &output, &parity, keypair)
            }
        }
        guard code != -1 else { throw .invalidPrivateKey }
        guard code == 1 else { throw .invalidTweak }
        var bytes = [UInt8](repeating: 0, count: 32)
        _ = secp256k1_xonly_pubkey_serialize(Secp256k1Context.shared, &bytes, &output)
        self.pair = pair
        self.outputKey = XOnlyPublicKey(validated: bytes)
    }

    private static func xOnlyBytes(of keypair: UnsafePointer<secp256k1_keypair>) -> [UInt8] {
        var key = secp256k1_xonly_pubkey()
        var parity: Int32 = 0
        _ = secp256k1_keypair_xonly_pub(Secp256k1Context.shared, &key, &parity, keypair)
        var bytes = [UInt8](repeating: 0, count: 32)
        _ = secp256k1_xonly_pubkey_serialize(Secp256k1Context.shared, &bytes, &key)
        return bytes
    }

    /// Signs `message` with BIP340 Schnorr under the output key, using `auxiliaryRandomness` (32 bytes).
    ///
    /// - Throws: `KeyError.invalidLength` when the auxiliary randomness is not 32 bytes.
    public func signSchnorr(
        message: some Collection<UInt8>,
        auxiliaryRandomness: [UInt8] = SecureRandom.bytes(32)
    ) throws(KeyError) -> SchnorrSignature {
        guard auxiliaryRandomness.count == 32 else {
            throw .invalidLength(expected: 32, actual: auxiliaryRandomness.count)
        }
        let messageBytes = Array(message)
        var signature = [UInt8](repeating: 0, count: 64)
        var extra = secp256k1_schnorrsig_extraparams()
        extra.magic = (0xDA, 0x6F, 0xB3, 0x8C)  // SECP256K1_SCHNORRSIG_EXTRAPARAMS_MAGIC
        let code = pair.withBytePointer { pointer, _ in
            pointer.withMemoryRebound(to: secp256k1_keypair.self, capacity: 1) { keypair in
                auxiliaryRandomness.withUnsafeBytes { aux in
                    extra.ndata = UnsafeMutableRawPointer(mutating: aux.baseAddress)
                    return secp256k1_schnorrsig_sign_custom(
                        Secp256k1Context.shared, &signature, messageBytes, messageBytes.count, keypair, &extra)
                }
            }
        }
        precondition(code == 1, "secp256k1_schnorrsig_sign_custom failed on a validated key pair")
        return SchnorrSignature(uncheckedBytes: signature)
    }
}
