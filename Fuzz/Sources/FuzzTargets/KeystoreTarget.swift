// FuzzKeystore: bytes as an Ethereum keystore v3 file through `KeystoreV3.decrypt` (the JSON, every field check, the
// KDF bounds, the MAC), as `airlock-signer eth import-keystore` reads it. Any trap is a bug.
import BitcoinCrypto
import Codecs
import Ethereum

extension FuzzTargets {
    /// One input of FuzzKeystore.
    ///
    /// Files asking for more than a small KDF (scrypt N × r × p over 2^12, PBKDF2 over 4,096 iterations) are read up to
    /// that point only: the product accepts up to 2^24 and 10,000,000, which is seconds per input, and the bounds
    /// themselves are unit-tested (`KeystoreV3Tests`).
    public static func keystore(_ bytes: [UInt8]) {
        guard keystoreKDFIsCheap(bytes) else { return }
        let password = SecretBytes(utf8: "fuzz")
        if let (key, address) = try? KeystoreV3.decrypt(json: bytes, password: password) {
            precondition(key.ethereumAddress == address, "a keystore decrypted to a key of another address")
        }
    }

    /// Whether the file's KDF parameters, read as the product reads them, cost little (or are absent or malformed,
    /// which the product refuses before deriving anything).
    static func keystoreKDFIsCheap(_ bytes: [UInt8]) -> Bool {
        guard let root = try? JSONValue(json: bytes), let crypto = root["crypto"] ?? root["Crypto"],
            let params = crypto["kdfparams"]
        else { return true }
        func number(_ name: String) -> Double { params[name]?.double ?? 1 }
        let scryptWork = number("n") * number("r") * number("p")
        return scryptWork <= 4096 && number("c") <= 4096
    }
}
