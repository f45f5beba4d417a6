internal import CSodium

/// Argon2id key-derivation parameters.
public struct Argon2Parameters: Sendable, Equatable, Codable {
    /// Memory in bytes.
    public var memoryBytes: Int
    /// Passes over the memory (libsodium's opslimit).
    public var iterations: Int

    /// Airlock's default: 256 MiB, 3 passes (docs/architecture.md section 3).
    public static let `default` = Argon2Parameters(memoryBytes: 256 << 20, iterations: 3)
    /// The least memory Airlock accepts: 64 MiB.
    public static let minimumMemoryBytes = 64 << 20

    /// Parameters with `memoryBytes` and `iterations`.
    public init(memoryBytes: Int, iterations: Int) {
        self.memoryBytes = memoryBytes
        self.iterations = iterations
    }
}

/// A value sealed under a password: Argon2id derives the key, XChaCha20-Poly1305 encrypts and authenticates the
/// secret together with caller-supplied associated data (for the vault: its header).
public struct SealedBox: Sendable, Equatable, Codable {
    /// The Argon2id salt (16 bytes).
    public var salt: [UInt8]
    /// The XChaCha20-Poly1305 nonce (24 bytes).
    public var nonce: [UInt8]
    /// Ciphertext followed by the 16-byte Poly1305 tag.
    public var ciphertext: [UInt8]

    /// Assembles a sealed box from its stored parts.
    public init(salt: [UInt8], nonce: [UInt8], ciphertext: [UInt8]) {
        self.salt = salt
        self.nonce = nonce
        self.ciphertext = ciphertext
    }
}

/// Password sealing with Argon2id and XChaCha20-Poly1305 (libsodium).
public enum PasswordSeal {
    /// Salt length of Argon2id in libsodium.
    public static let saltLength = Int(crypto_pwhash_SALTBYTES)
    /// Nonce length of XChaCha20-Poly1305.
    public static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    /// Authentication tag length.
    public static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// Derives the 32-byte key for `password` and `salt`.
    ///
    /// - Throws: `SealError.invalidParameters` or `.keyDerivationFailed` (not enough memory).
    public static func deriveKey(
        password: SecretBytes, salt: [UInt8], parameters: Argon2Parameters
    ) throws(SealError) -> SecretBytes {
        Sodium.ensure()
        guard salt.count == saltLength else {
            throw .invalidLength(field: "salt", expected: saltLength, actual: salt.count)
        }
        guard parameters.memoryBytes >= Int(crypto_pwhash_MEMLIMIT_MIN),
            parameters.iterations >= Int(crypto_pwhash_OPSLIMIT_MIN), parameters.iterations <= 64
        else {
            throw .invalidParameters("memory \(parameters.memoryBytes) B, \(parameters.iterations) passes")
        }
        let key = SecretBytes(count: Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES))
        let code = key.withMutableBytePointer { out, outCount in
            password.withBytePointer { pw, pwCount in
                pw.withMemoryRebound(to: CChar.self, capacity: Swift.max(pwCount, 1)) { pwChars in
                    crypto_pwhash(
                        out, UInt64(outCount), pwChars, UInt64(pwCount), salt,
                        UInt64(parameters.iterations), parameters.memoryBytes, crypto_pwhash_ALG_ARGON2ID13)
                }
            }
        }
        guard code == 0 else { throw .keyDerivationFailed(memoryBytes: parameters.memoryBytes) }
        return key
    }

    /// Seals `plaintext` under `key` with a fresh random nonce, binding `associatedData`.
    public static func seal(
        _ plaintext: SecretBytes, key: SecretBytes, salt: [UInt8], associatedData: [UInt8]
    ) -> SealedBox {
        Sodium.ensure()
        let nonce = SecureRandom.bytes(nonceLength)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var written: UInt64 = 0
        let code = plaintext.withBytePointer { message, messageCount in
            key.withBytePointer { k, _ in
                crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &ciphertext, &written, message, UInt64(messageCount), associatedData,
                    UInt64(associatedData.count), nil, nonce, k)
            }
        }
        precondition(code == 0 && Int(written) == ciphertext.count, "xchacha20poly1305 encrypt failed")
        return SealedBox(salt: salt, nonce: nonce, ciphertext: ciphertext)
    }

    /// Opens `box` with `key`, checking `associatedData`.
    ///
    /// - Throws: `SealError.authenticationFailed` for a wrong key or any change to the box or the associated data.
    public static func open(
        _ box: SealedBox, key: SecretBytes, associatedData: [UInt8]
    ) throws(SealError) -> SecretBytes {
        Sodium.ensure()
        guard box.nonce.count == nonceLength else {
            throw .invalidLength(field: "nonce", expected: nonceLength, actual: box.nonce.count)
        }
        guard box.ciphertext.count >= tagLength else {
            throw .invalidLength(field: "ciphertext", expected: tagLength, actual: box.ciphertext.count)
        }
        let plaintext = SecretBytes(count: box.ciphertext.count - tagLength)
        var written: UInt64 = 0
        let code = plaintext.withMutableBytePointer { out, _ in
            key.withBytePointer { k, _ in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    out, &written, nil, box.ciphertext, UInt64(box.ciphertext.count), associatedData,
                    UInt64(associatedData.count), box.nonce, k)
            }
        }
        guard code == 0 else { throw .authenticationFailed }
        return plaintext
    }
}
