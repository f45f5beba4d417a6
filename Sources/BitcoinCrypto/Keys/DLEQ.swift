internal import CSecp256k1

/// BIP374 discrete-log-equality proofs over secp256k1.
///
/// A proof that C = a·B for the same a as A = a·G, without revealing a. Silent-payment signers (BIP375) attach one to every ECDH share so that others can check the share.
///
/// All point and scalar arithmetic is libsecp256k1's (`secp256k1_ec_pubkey_tweak_mul`, `_combine`, `_negate`,
/// `secp256k1_ec_seckey_tweak_mul`, `_tweak_add`); the only arithmetic here is reducing a 256-bit hash modulo the
/// group order (one conditional subtraction), which libsecp256k1 has no public function for.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0374.mediawiki
public enum DLEQ {
    /// The secp256k1 generator G, compressed.
    public static let generator: PublicKey = {
        let bytes: [UInt8] = [
            0x02, 0x79, 0xBE, 0x66, 0x7E, 0xF9, 0xDC, 0xBB, 0xAC, 0x55, 0xA0, 0x62, 0x95, 0xCE, 0x87, 0x0B, 0x07, 0x02,
            0x9B, 0xFC, 0xDB, 0x2D, 0xCE, 0x28, 0xD9, 0x59, 0xF2, 0x81, 0x5B, 0x16, 0xF8, 0x17, 0x98,
        ]
        guard let key = try? PublicKey(serialized: bytes) else { preconditionFailure("the generator parses") }
        return key
    }()

    /// The group order n, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,
        0xBA, 0xAE, 0xDC, 0xE6, 0xAF, 0x48, 0xA0, 0x3B, 0xBF, 0xD2, 0x5E, 0x8C, 0xD0, 0x36, 0x41, 0x41,
    ]

    static let auxTag = TaggedHash(tag: "BIP0374/aux")
    static let nonceTag = TaggedHash(tag: "BIP0374/nonce")
    static let challengeTag = TaggedHash(tag: "BIP0374/challenge")

    /// BIP374 GenerateProof: a 64-byte proof that `privateKey`·`generatorPoint` and `privateKey`·`point` share the
    /// discrete logarithm, with 32 bytes of auxiliary randomness and an optional 32-byte message; nil where the BIP
    /// fails (a zero nonce, or a proof that does not verify).
    public static func generateProof(
        privateKey: PrivateKey, point: PublicKey, auxiliaryRandomness: [UInt8], generatorPoint: PublicKey = generator,
        message: [UInt8]? = nil
    ) -> [UInt8]? {
        guard auxiliaryRandomness.count == 32, message == nil || message?.count == 32 else { return nil }
        let isStandard = generatorPoint == generator
        guard let publicA = isStandard ? privateKey.publicKey : try? generatorPoint.multiplied(by: privateKey),
            let shared = try? point.multiplied(by: privateKey)
        else { return nil }
        // t = bytes(a) xor hash_aux(r); rand = hash_nonce(t || A || C || m); k = rand mod n.
        let maskHash = auxTag.hash(auxiliaryRandomness)
        let masked = SecretBytes(count: 32)
        masked.withMutableBytePointer { target, _ in
            privateKey.secret.withBytePointer { source, _ in
                for i in 0..<32 { target[i] = source[i] ^ maskHash[i] }
            }
        }
        var nonceHasher = nonceTag.hasher()
        nonceHasher.update(masked)
        nonceHasher.update(publicA.compressed)
        nonceHasher.update(shared.compressed)
        nonceHasher.update(message ?? [])
        var nonceBytes = nonceHasher.finalize()
        reduceModOrder(&nonceBytes)
        let nonce = SecretBytes(copying: nonceBytes)
        SecretBytes.wipe(&nonceBytes)
        guard let k = try? PrivateKey(secret: nonce) else { return nil }  // k == 0
        guard let r1 = isStandard ? k.publicKey : try? generatorPoint.multiplied(by: k),
            let r2 = try? point.multiplied(by: k)
        else { return nil }
        let challenge = challengeHash(
            a: publicA, b: point, c: shared, g: generatorPoint, r1: r1, r2: r2, message: message)
        var e = challenge
        reduceModOrder(&e)
        // s = k + e·a mod n.
        let s = SecretBytes(count: 32)
        let code = s.withMutableBytePointer { target, _ -> Int32 in
            privateKey.secret.withBytePointer { source, _ in target.update(from: source, count: 32) }
            guard secp256k1_ec_seckey_tweak_mul(Secp256k1Context.shared, target, e) == 1 else { return 0 }
            return k.secret.withBytePointer { kBytes, _ in
                secp256k1_ec_seckey_tweak_add(Secp256k1Context.shared, target, kBytes)
            }
        }
        guard code == 1 else { return nil }
        let proof =
            challenge + s.withBytePointer { pointer, count in Array(UnsafeBufferPointer(start: pointer, count: count)) }
        guard
            verifyProof(
                a: publicA, b: point, c: shared, proof: proof, generatorPoint: generatorPoint, message: message)
        else { return nil }
        return proof
    }

    /// BIP374 VerifyProof: whether `proof` shows that `c` = x·`b` for the x with `a` = x·`generatorPoint`.
    public static func verifyProof(
        a: PublicKey, b: PublicKey, c: PublicKey, proof: [UInt8], generatorPoint: PublicKey = generator,
        message: [UInt8]? = nil
    ) -> Bool {
        guard proof.count == 64, message == nil || message?.count == 32 else { return false }
        let e = Array(proof[0..<32])
        let s = Array(proof[32..<64])
        guard !isAtLeastOrder(s) else { return false }
        var eReduced = e
        reduceModOrder(&eReduced)
        // R1 = s·G − e·A, R2 = s·B − e·C; neither may be infinity.
        guard let r1 = difference(generatorPoint, s, a, eReduced), let r2 = difference(b, s, c, eReduced) else {
            return false
        }
        return e == challengeHash(a: a, b: b, c: c, g: generatorPoint, r1: r1, r2: r2, message: message)
    }

    /// x·P − y·Q (nil for the point at infinity).
    private static func difference(_ p: PublicKey, _ x: [UInt8], _ q: PublicKey, _ y: [UInt8]) -> PublicKey? {
        let xp = isZero(x) ? nil : try? p.multiplied(by: x)
        let yq = isZero(y) ? nil : try? q.multiplied(by: y)
        switch (xp, yq) {
        case (nil, nil): return nil
        case (let xp?, nil): return xp
        case (nil, let yq?): return yq.negated()
        case (let xp?, let yq?): return try? PublicKey.combine([xp, yq.negated()])
        }
    }

    static func challengeHash(
        a: PublicKey, b: PublicKey, c: PublicKey, g: PublicKey, r1: PublicKey, r2: PublicKey, message: [UInt8]?
    ) -> [UInt8] {
        challengeTag.hash(
            a.compressed + b.compressed + c.compressed + g.compressed + r1.compressed + r2.compressed + (message ?? []))
    }

    static func isZero(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 == 0 } }

    /// Whether a 32-byte big-endian number is at least n.
    static func isAtLeastOrder(_ bytes: [UInt8]) -> Bool {
        for (byte, limit) in zip(bytes, order) where byte != limit { return byte > limit }
        return true
    }

    /// Reduces a 32-byte big-endian number below 2^256 modulo n in place (one subtraction suffices, as 2^256 < 2n).
    static func reduceModOrder(_ bytes: inout [UInt8]) {
        guard isAtLeastOrder(bytes) else { return }
        var borrow = 0
        for i in stride(from: 31, through: 0, by: -1) {
            let difference = Int(bytes[i]) - Int(order[i]) - borrow
            borrow = difference < 0 ? 1 : 0
            bytes[i] = UInt8((difference + 256) & 0xFF)
        }
    }
}

extension PublicKey {
    /// The point −P.
    public func negated() -> PublicKey {
        var raw = parsed
        let code = secp256k1_ec_pubkey_negate(Secp256k1Context.shared, &raw)
        precondition(code == 1, "secp256k1_ec_pubkey_negate failed on a parsed key")
        return PublicKey(raw: raw)
    }

    /// This point multiplied by a private key's scalar (an ECDH share, kept as a point: BIP352's a·B_scan).
    public func multiplied(by key: PrivateKey) throws(KeyError) -> PublicKey {
        var raw = parsed
        let code = key.secret.withBytePointer { bytes, _ in
            secp256k1_ec_pubkey_tweak_mul(Secp256k1Context.shared, &raw, bytes)
        }
        guard code == 1 else { throw .invalidTweak }
        return PublicKey(raw: raw)
    }
}
