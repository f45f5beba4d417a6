/// Why a keystore v3 file was not read.
public enum KeystoreError: Error, Equatable, Sendable {
    /// Not JSON, or not an object.
    case invalidJSON
    /// `version` is not 3.
    case unsupportedVersion(String)
    /// A cipher other than `aes-128-ctr`.
    case unsupportedCipher(String)
    /// A KDF other than `scrypt` or `pbkdf2` (with `hmac-sha256`).
    case unsupportedKDF(String)
    /// A field is missing or has the wrong type or length.
    case malformedField(String)
    /// The KDF parameters ask for more work or memory than this signer spends (a file made to stall it).
    case parametersTooCostly(String)
    /// The MAC does not match: the wrong password (or an edited file).
    case wrongPassword
    /// The decrypted bytes are not a valid secp256k1 private key.
    case invalidKey
    /// The file's `address` is not the address of the key inside.
    case addressMismatch(stated: String, derived: String)
}

extension KeystoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidJSON: "not a keystore: the file is not a JSON object"
        case .unsupportedVersion(let v): "keystore version \(v) is not supported (only version 3)"
        case .unsupportedCipher(let c): "keystore cipher '\(c)' is not supported (only aes-128-ctr)"
        case .unsupportedKDF(let k): "keystore KDF '\(k)' is not supported (scrypt, or pbkdf2 with hmac-sha256)"
        case .malformedField(let f): "keystore field \(f) is missing or malformed"
        case .parametersTooCostly(let why): "keystore KDF parameters refused: \(why)"
        case .wrongPassword: "wrong keystore password (the MAC does not match)"
        case .invalidKey: "the keystore holds no valid secp256k1 private key"
        case .addressMismatch(let stated, let derived):
            "the keystore says address \(stated) but its key is \(derived)"
        }
    }
}
