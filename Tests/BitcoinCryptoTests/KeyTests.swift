import BitcoinCrypto
import TestSupport
import Testing

@Suite("ECDSA, DER, secrets and sealing")
struct KeyTests {
    let key: PrivateKey

    init() throws {
        key = try PrivateKey(secret: SecretBytes(copying: SHA256.hash(Array("airlock test key".utf8))))
    }

    @Test("ECDSA signatures are low-R, low-S, deterministic and verify, over 256 messages")
    func lowR() throws {
        let publicKey = key.publicKey
        for i in 0..<256 {
            let digest = SHA256.hash(Array("message \(i)".utf8))
            let signature = try key.signECDSA(digest: digest)
            #expect(signature.compact[0] < 0x80)
            #expect(signature.isLowS)
            #expect(signature.der.count <= 70)
            #expect(try key.signECDSA(digest: digest) == signature)
            #expect(publicKey.verify(signature, digest: digest))
            #expect(!publicKey.verify(signature, digest: SHA256.hash(digest)))
            #expect(try ECDSASignature(der: signature.der) == signature)
        }
    }

    @Test(
        "Non-strict DER is refused (BIP66)",
        arguments: [
            // r with a needless leading zero
            "3045022100" + String(repeating: "11", count: 32) + "0220" + String(repeating: "22", count: 32),
            // negative r
            "30440220" + "81" + String(repeating: "11", count: 31) + "0220" + String(repeating: "22", count: 32),
            // wrong total length
            "30450220" + String(repeating: "11", count: 32) + "0220" + String(repeating: "22", count: 32),
            // trailing byte
            "30440220" + String(repeating: "11", count: 32) + "0220" + String(repeating: "22", count: 32) + "00",
            // wrong tag
            "31440220" + String(repeating: "11", count: 32) + "0220" + String(repeating: "22", count: 32),
            // empty s
            "3024" + "0220" + String(repeating: "11", count: 32) + "0200",
            "",
        ])
    func strictDER(_ hex: String) {
        #expect(throws: KeyError.invalidDER) { try ECDSASignature(der: TestHex.bytes(hex)) }
    }

    @Test("Invalid keys and points are typed errors")
    func invalidKeys() {
        #expect(throws: KeyError.invalidPrivateKey) {
            try PrivateKey(secret: SecretBytes(count: 32))
        }
        #expect(throws: KeyError.invalidPrivateKey) {
            try PrivateKey(
                secret: SecretBytes(
                    copying: TestHex.bytes("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")))
        }
        #expect(throws: KeyError.notOnCurve) {
            try PublicKey(serialized: [0x02] + [UInt8](repeating: 0xFF, count: 32))
        }
        #expect(throws: KeyError.notOnCurve) {
            try XOnlyPublicKey(
                serialized: TestHex.bytes(
                    "eefdea4cdb677750a420fee807eacf21eb9898ae79b9768766e4faa04a2d4a34"))
        }
        #expect(throws: KeyError.invalidLength(expected: 33, actual: 32)) {
            try PublicKey(serialized: [UInt8](repeating: 2, count: 32))
        }
    }

    @Test("A public key plus tweak·G equals the public key of the secret plus tweak, over 64 keys; edge tweaks")
    func publicTweak() throws {
        for i in 0..<64 {
            let secret = try PrivateKey(secret: SecretBytes(copying: SHA256.hash(Array("tweak key \(i)".utf8))))
            let tweak = SHA256.hash(Array("tweak \(i)".utf8))
            // The point path (CKDpub's addition) against the scalar path (CKDpriv's addition).
            #expect(try secret.publicKey.adding(tweak: tweak) == secret.adding(tweak: tweak).publicKey)
        }
        let point = key.publicKey
        // A zero tweak leaves the point as it is.
        #expect(try point.adding(tweak: [UInt8](repeating: 0, count: 32)) == point)
        // A tweak of n or above is refused, as before.
        #expect(throws: KeyError.invalidTweak) { try point.adding(tweak: GroupOrder.bytes) }
        #expect(throws: KeyError.invalidTweak) { try point.adding(tweak: [UInt8](repeating: 0xFF, count: 32)) }
        // n - k: the sum is the point at infinity, refused.
        let negation = key.negated().secret.unsafeCopyToArray()
        #expect(throws: KeyError.invalidTweak) { try point.adding(tweak: negation) }
        // A tweak of one is P + G, the same as P + G computed as a sum of points.
        var one = [UInt8](repeating: 0, count: 32)
        one[31] = 1
        let generator = try PrivateKey(secret: SecretBytes(copying: one)).publicKey
        #expect(try point.adding(tweak: one) == PublicKey.combine([point, generator]))
        #expect(throws: KeyError.invalidLength(expected: 32, actual: 31)) {
            try point.adding(tweak: [UInt8](repeating: 1, count: 31))
        }
    }

    @Test("Secrets never show in descriptions")
    func redaction() {
        let secret = SecretBytes(copying: [0xDE, 0xAD, 0xBE, 0xEF])
        for text in [
            "\(secret)", String(describing: secret), String(reflecting: secret), "\(key)", String(reflecting: key),
        ] {
            #expect(text.contains("redacted"))
            #expect(!text.lowercased().contains("deadbeef"))
        }
        let hex = key.secret.unsafeCopyToArray().hexString
        #expect(!"\(key)".contains(hex))
        #expect(secret == SecretBytes(copying: [0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(secret != SecretBytes(copying: [0xDE, 0xAD, 0xBE, 0xEE]))
    }

    @Test("Small secrets share arena slots: a released slot comes back zeroed, live secrets never overlap")
    func arenaSlots() {
        // Fill and release many full-slot (128-byte) secrets, then allocate again: every new secret starts zeroed (slots reused).
        var addresses = Set<UInt>()
        for round in 0..<3 {
            var live: [SecretBytes] = []
            for index in 0..<2_000 {
                let secret = SecretBytes(count: 128)
                #expect(secret.withUnsafeBytes { $0.allSatisfy { $0 == 0 } })
                secret.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: UInt8(index % 255 + 1)) }
                live.append(secret)
            }
            let starts = live.map { secret in secret.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } }
            #expect(Set(starts).count == live.count, "two live secrets share a slot")
            if round > 0 { #expect(!addresses.isDisjoint(with: starts), "released slots are not reused") }
            addresses.formUnion(starts)
            for (index, secret) in live.enumerated() {
                #expect(secret.withUnsafeBytes { $0.allSatisfy { $0 == UInt8(index % 255 + 1) } })
            }
        }
        // Larger secrets come from their own sodium_malloc allocation and still start zeroed.
        let large = SecretBytes(count: 4_096)
        #expect(large.withUnsafeBytes { $0.count == 4_096 && $0.allSatisfy { $0 == 0 } })
    }

    @Test("Sealing round-trips and detects tampering, a wrong password and wrong associated data")
    func sealing() throws {
        let parameters = Argon2Parameters(memoryBytes: 1 << 20, iterations: 1)
        let salt = SecureRandom.bytes(PasswordSeal.saltLength)
        let password = SecretBytes(utf8: "correct horse")
        let sealKey = try PasswordSeal.deriveKey(password: password, salt: salt, parameters: parameters)
        let plaintext = SecretBytes(copying: Array("seed bytes".utf8))
        let aad = Array("airlock-vault v1".utf8)
        let box = PasswordSeal.seal(plaintext, key: sealKey, salt: salt, associatedData: aad)
        #expect(try PasswordSeal.open(box, key: sealKey, associatedData: aad) == plaintext)

        var tampered = box
        tampered.ciphertext[0] ^= 1
        #expect(throws: SealError.authenticationFailed) {
            try PasswordSeal.open(tampered, key: sealKey, associatedData: aad)
        }
        var badTag = box
        badTag.ciphertext[badTag.ciphertext.count - 1] ^= 0x80
        #expect(throws: SealError.authenticationFailed) {
            try PasswordSeal.open(badTag, key: sealKey, associatedData: aad)
        }
        #expect(throws: SealError.authenticationFailed) {
            try PasswordSeal.open(box, key: sealKey, associatedData: aad + [0])
        }
        let wrongKey = try PasswordSeal.deriveKey(
            password: SecretBytes(utf8: "wrong horse"), salt: salt, parameters: parameters)
        #expect(throws: SealError.authenticationFailed) {
            try PasswordSeal.open(box, key: wrongKey, associatedData: aad)
        }
        #expect(throws: SealError.invalidLength(field: "salt", expected: PasswordSeal.saltLength, actual: 3)) {
            try PasswordSeal.deriveKey(password: password, salt: [1, 2, 3], parameters: parameters)
        }
    }

    /// The public key a private key carries (computed once, or derived cheaply for a negated key) is the one
    /// secp256k1_ec_pubkey_create gives for its secret, and BIP341 tweaking keeps the two in step.
    @Test("Carried public keys match the secret: new, negated and taproot-tweaked keys, 64 random keys")
    func carriedPublicKeys() throws {
        for _ in 0..<64 {
            let key = PrivateKey.random()
            for derived in [key, key.negated(), try key.taprootTweaked(merkleRoot: nil)] {
                let recomputed = try PrivateKey(secret: SecretBytes(copying: derived.secret.unsafeCopyToArray()))
                #expect(derived.publicKey == recomputed.publicKey)
            }
            #expect(key.negated().publicKey.xOnly.key == key.publicKey.xOnly.key)
            #expect(key.negated().publicKey != key.publicKey)
        }
    }
}
