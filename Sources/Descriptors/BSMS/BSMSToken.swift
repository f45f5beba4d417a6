import Bitcoin
import BitcoinCrypto

/// The BIP129 session token and the encryption it keys.
///
/// PBKDF2-HMAC-SHA512("No SPOF", TOKEN, 2048) gives a 32-byte
/// key, `MAC = HMAC-SHA256(SHA256(key), hex(TOKEN) ‖ data)`, AES-256-CTR from `IV = MAC[0..<16]`; the record
/// travels as `hex(MAC ‖ ciphertext)`. The token `00` means no encryption.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0129.mediawiki#encryption
public struct BSMSToken: Sendable, Equatable {
    /// The token bytes (`[0]` for no encryption).
    public let bytes: [UInt8]

    /// No encryption (`00`).
    public static let none = BSMSToken(unchecked: [0])

    init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Parses the hex token: `00`, or 8 (STANDARD) or 16 (EXTENDED) bytes.
    ///
    /// - Throws: `BSMSError.invalidToken`.
    public init(hex: String) throws(BSMSError) {
        guard let bytes = try? [UInt8](hex: hex.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()),
            bytes == [0] || bytes.count == 8 || bytes.count == 16
        else { throw .invalidToken(hex) }
        self.bytes = bytes
    }

    /// Whether records are encrypted.
    public var encrypts: Bool { bytes != [0] }

    /// The lowercase hex form, as the key record's second line.
    public var hexString: String { bytes.hexString }

    /// The derived `ENCRYPTION_KEY`.
    public func encryptionKey() -> SecretBytes {
        PBKDF2.hmacSHA512(
            password: SecretBytes(copying: Array("No SPOF".utf8)), salt: bytes, iterations: 2048, keyLength: 32)
    }

    /// The MAC of `data`.
    public func mac(_ data: [UInt8]) -> [UInt8] {
        let hmacKey = SHA256.hash(encryptionKey().unsafeCopyToArray())
        return HMACSHA256.authenticate(key: hmacKey, message: Array(hexString.utf8) + data)
    }

    /// `hex(MAC ‖ ciphertext)` of `plaintext`.
    public func encrypt(_ plaintext: [UInt8]) -> String {
        let mac = mac(plaintext)
        let ciphertext = (try? AES256CTR.apply(key: encryptionKey(), iv: Array(mac.prefix(16)), to: plaintext)) ?? []
        return (mac + ciphertext).hexString
    }

    /// The plaintext of `hex(MAC ‖ ciphertext)`, its MAC checked.
    ///
    /// - Throws: `BSMSError.malformedRecord` (not hex, too short) or `.macMismatch`.
    public func decrypt(_ text: String) throws(BSMSError) -> [UInt8] {
        guard let bytes = try? [UInt8](hex: text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()),
            bytes.count > 32
        else { throw .malformedRecord("an encrypted record is hex of a 32-byte MAC and the ciphertext") }
        let mac = Array(bytes.prefix(32))
        guard
            let plaintext = try? AES256CTR.apply(
                key: encryptionKey(), iv: Array(mac.prefix(16)), to: Array(bytes.dropFirst(32)))
        else { throw .macMismatch }
        guard self.mac(plaintext) == mac else { throw .macMismatch }
        return plaintext
    }
}
