public import BitcoinCrypto
import Codecs

/// Ethereum keystore v3 files (the Web3 Secret Storage Definition, as Geth and eth-keyfile write them): a private key
/// encrypted with AES-128-CTR under the first half of a password-derived key, authenticated by
/// `Keccak-256(derivedKey[16..<32] ‖ ciphertext)`.
///
/// Written with scrypt N = 262144, r = 8, p = 1 (Geth's "standard" parameters) unless told otherwise; read with scrypt
/// or PBKDF2-HMAC-SHA-256, within bounds that keep a crafted file from taking gigabytes or hours.
public enum KeystoreV3 {
    /// The key derivation of a file.
    public enum KDF: Sendable, Equatable {
        /// scrypt with cost N, block size r, parallelism p.
        case scrypt(n: UInt64, r: UInt32, p: UInt32)
        /// PBKDF2-HMAC-SHA-256 with c iterations.
        case pbkdf2(iterations: UInt32)

        /// Geth's standard scrypt parameters.
        public static let standard = KDF.scrypt(n: 262_144, r: 8, p: 1)
    }

    /// The most memory scrypt may use when reading a file (128 × r × N bytes): 1 GiB.
    static let maximumScryptMemory: UInt64 = 1 << 30
    /// The most scrypt work (N × r × p) accepted: 2^24 (Geth's standard is 2^21).
    static let maximumScryptWork: UInt64 = 1 << 24
    /// The most PBKDF2 iterations accepted.
    static let maximumIterations: UInt64 = 10_000_000

    /// Decrypts a keystore v3 file with `password`.
    ///
    /// Keys shorter than 32 bytes (older writers dropped leading zeros) are left-padded, as Geth reads them.
    /// - Returns: the private key and its address.
    /// - Throws: `KeystoreError`; `.wrongPassword` when the MAC does not match.
    public static func decrypt(
        json: [UInt8], password: SecretBytes
    ) throws(KeystoreError) -> (key: PrivateKey, address: EthereumAddress) {
        let root: JSONValue
        do { root = try JSONValue(json: json) } catch { throw .invalidJSON }
        guard case .object = root else { throw .invalidJSON }
        switch root["version"] {
        case .number("3")?: break
        case .number(let v)?: throw .unsupportedVersion(v)
        case .string(let v)?: throw .unsupportedVersion(v)
        default: throw .malformedField("version")
        }
        guard let crypto = root["crypto"] ?? root["Crypto"], case .object = crypto else {
            throw .malformedField("crypto")
        }
        guard case .string(let cipher)? = crypto["cipher"] else { throw .malformedField("crypto.cipher") }
        guard cipher == "aes-128-ctr" else { throw .unsupportedCipher(cipher) }
        let iv = try hex(crypto["cipherparams"]?["iv"], "crypto.cipherparams.iv")
        guard iv.count == AES128CTR.ivLength else { throw .malformedField("crypto.cipherparams.iv") }
        let ciphertext = try hex(crypto["ciphertext"], "crypto.ciphertext")
        guard (1...32).contains(ciphertext.count) else { throw .malformedField("crypto.ciphertext") }
        let mac = try hex(crypto["mac"], "crypto.mac")
        guard mac.count == 32 else { throw .malformedField("crypto.mac") }
        guard case .string(let kdfName)? = crypto["kdf"] else { throw .malformedField("crypto.kdf") }
        guard let params = crypto["kdfparams"], case .object = params else {
            throw .malformedField("crypto.kdfparams")
        }
        let salt = try hex(params["salt"], "crypto.kdfparams.salt")
        let dkLength = try integer(params["dklen"], "crypto.kdfparams.dklen")
        guard (32...64).contains(dkLength) else { throw .malformedField("crypto.kdfparams.dklen") }
        let kdf: KDF
        switch kdfName {
        case "scrypt":
            let n = try integer(params["n"], "crypto.kdfparams.n")
            let r = try integer(params["r"], "crypto.kdfparams.r")
            let p = try integer(params["p"], "crypto.kdfparams.p")
            guard n > 1, n & (n - 1) == 0 else { throw .malformedField("crypto.kdfparams.n") }
            guard (1...1024).contains(r), (1...1024).contains(p) else { throw .parametersTooCostly("r or p too large") }
            guard n <= maximumScryptMemory / 128 / r else { throw .parametersTooCostly("scrypt needs over 1 GiB") }
            guard n <= maximumScryptWork / r / p else { throw .parametersTooCostly("scrypt N × r × p above 2^24") }
            kdf = .scrypt(n: n, r: UInt32(r), p: UInt32(p))
        case "pbkdf2":
            guard case .string("hmac-sha256")? = params["prf"] else {
                throw .unsupportedKDF("pbkdf2 with another PRF")
            }
            let c = try integer(params["c"], "crypto.kdfparams.c")
            guard c >= 1 else { throw .malformedField("crypto.kdfparams.c") }
            guard c <= maximumIterations else { throw .parametersTooCostly("over 10,000,000 PBKDF2 iterations") }
            kdf = .pbkdf2(iterations: UInt32(c))
        default:
            throw .unsupportedKDF(kdfName)
        }
        let derived = try deriveKey(password: password, salt: salt, kdf: kdf, length: Int(dkLength))
        let expected = Keccak256.hash(derived.slice(16..<32).unsafeCopyToArray() + ciphertext)
        guard constantTimeEqual(expected, mac) else { throw .wrongPassword }
        let plain = AES128CTR.apply(key: derived.slice(0..<16), iv: iv, to: ciphertext)
        let padded = SecretBytes(count: 32).appendingLeftPadded(plain)
        let key: PrivateKey
        do { key = try PrivateKey(secret: padded) } catch { throw .invalidKey }
        let address = key.ethereumAddress
        if case .string(let stated)? = root["address"] {
            guard let bytes = Hex.decode(stated), bytes == address.bytes else {
                throw .addressMismatch(stated: stated, derived: address.checksummed)
            }
        }
        return (key, address)
    }

    /// Encrypts `key` under `password` as a keystore v3 file: fresh random salt (32 bytes), IV and version-4 UUID.
    ///
    /// - Returns: the file's JSON text (compact, keys sorted, as Geth writes it).
    public static func encrypt(key: PrivateKey, password: SecretBytes, kdf: KDF = .standard) -> String {
        encrypt(
            key: key, password: password, kdf: kdf, salt: SecureRandom.bytes(32), iv: SecureRandom.bytes(16),
            uuid: SecureRandom.bytes(16))
    }

    /// `encrypt(key:password:kdf:)` with given random parts (for tests).
    static func encrypt(
        key: PrivateKey, password: SecretBytes, kdf: KDF, salt: [UInt8], iv: [UInt8], uuid: [UInt8]
    ) -> String {
        // The parameters are this module's own (standard, or a test's): derivation cannot fail for them.
        guard let derived = try? deriveKey(password: password, salt: salt, kdf: kdf, length: 32) else {
            preconditionFailure("keystore KDF parameters rejected: \(kdf)")
        }
        let ciphertextSecret = AES128CTR.apply(key: derived.slice(0..<16), iv: iv, to: key.secret.unsafeCopyToArray())
        let ciphertext = ciphertextSecret.unsafeCopyToArray()
        let mac = Keccak256.hash(derived.slice(16..<32).unsafeCopyToArray() + ciphertext)
        let kdfName: String
        let kdfParams: String
        switch kdf {
        case .scrypt(let n, let r, let p):
            kdfName = "scrypt"
            kdfParams = "{\"dklen\":32,\"n\":\(n),\"p\":\(p),\"r\":\(r),\"salt\":\"\(Hex.encode(salt))\"}"
        case .pbkdf2(let c):
            kdfName = "pbkdf2"
            kdfParams = "{\"c\":\(c),\"dklen\":32,\"prf\":\"hmac-sha256\",\"salt\":\"\(Hex.encode(salt))\"}"
        }
        var id = uuid
        id[6] = id[6] & 0x0F | 0x40
        id[8] = id[8] & 0x3F | 0x80
        let hexID = Hex.encode(id)
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hexID.dropFirst(range.lowerBound).prefix(range.count))
        }
        return "{\"address\":\"\(Hex.encode(key.ethereumAddress.bytes))\",\"crypto\":{\"cipher\":\"aes-128-ctr\","
            + "\"cipherparams\":{\"iv\":\"\(Hex.encode(iv))\"},\"ciphertext\":\"\(Hex.encode(ciphertext))\","
            + "\"kdf\":\"\(kdfName)\",\"kdfparams\":\(kdfParams),\"mac\":\"\(Hex.encode(mac))\"},"
            + "\"id\":\"\(parts.joined(separator: "-"))\",\"version\":3}"
    }

    static func deriveKey(
        password: SecretBytes, salt: [UInt8], kdf: KDF, length: Int
    ) throws(KeystoreError) -> SecretBytes {
        switch kdf {
        case .scrypt(let n, let r, let p):
            do { return try Scrypt.derive(password: password, salt: salt, n: n, r: r, p: p, keyLength: length) } catch {
                throw .parametersTooCostly("scrypt refused N=\(n) r=\(r) p=\(p)")
            }
        case .pbkdf2(let iterations):
            return PBKDF2.hmacSHA256(password: password, salt: salt, iterations: Int(iterations), keyLength: length)
        }
    }

    private static func hex(_ value: JSONValue?, _ name: String) throws(KeystoreError) -> [UInt8] {
        guard case .string(let text)? = value, let bytes = Hex.decode(text) else { throw .malformedField(name) }
        return bytes
    }

    private static func integer(_ value: JSONValue?, _ name: String) throws(KeystoreError) -> UInt64 {
        guard case .number(let text)? = value, let n = UInt64(text) else { throw .malformedField(name) }
        return n
    }

    private static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}

extension SecretBytes {
    /// `self` (zeros, of the target length) with `value` copied into its last bytes: a short key left-padded.
    fileprivate func appendingLeftPadded(_ value: SecretBytes) -> SecretBytes {
        precondition(value.count <= count)
        let offset = count - value.count
        withUnsafeMutableBytes { target in
            value.withUnsafeBytes { source in
                for i in 0..<source.count { target[offset + i] = source[i] }
            }
        }
        return self
    }
}
