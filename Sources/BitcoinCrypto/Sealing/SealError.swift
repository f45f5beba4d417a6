/// Errors from sealing or opening data under a password (Argon2id + XChaCha20-Poly1305).
public enum SealError: Error, Equatable, Sendable {
    /// The KDF parameters are outside what libsodium accepts or below Airlock's floor.
    case invalidParameters(String)
    /// Argon2id could not allocate its memory.
    case keyDerivationFailed(memoryBytes: Int)
    /// The ciphertext or its associated data failed authentication: a wrong password or a tampered file.
    case authenticationFailed
    /// A salt, nonce or ciphertext has the wrong length.
    case invalidLength(field: String, expected: Int, actual: Int)
}
