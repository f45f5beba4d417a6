import Bitcoin
import BitcoinCrypto

/// SeedSigner's SeedQR: a BIP39 mnemonic as the payload of a QR code small enough to copy by hand.
///
/// - Standard: each word's index as four decimal digits, concatenated (48 digits for 12 words, 96 for 24), encoded in
///   the QR numeric mode; any phone's reader shows the digits.
/// - Compact: the entropy bits alone (16 or 32 bytes; the checksum bits are recomputed), encoded in byte mode, one QR
///   version smaller.
///
/// Payloads are secret: they come and go in `SecretBytes`.
/// - SeeAlso: https://github.com/SeedSigner/seedsigner/blob/dev/docs/seed_qr/README.md
public enum SeedQR {
    /// The two SeedQR formats.
    public enum Format: String, Sendable, CaseIterable {
        /// Four decimal digits a word.
        case standard
        /// The entropy bytes.
        case compact
    }

    /// The QR payload of `mnemonic` in `format`: ASCII digits (standard) or the entropy bytes (compact).
    public static func payload(for mnemonic: Mnemonic, format: Format) -> SecretBytes {
        switch format {
        case .compact:
            return SecretBytes(copying: mnemonic.entropy.unsafeCopyToArray())
        case .standard:
            var indexes = wordIndexes(of: mnemonic)
            defer { for i in indexes.indices { indexes[i] = 0 } }
            var digits: [UInt8] = []
            for index in indexes {
                for divisor in [1000, 100, 10, 1] { digits.append(UInt8(ascii: "0") + UInt8(index / divisor % 10)) }
            }
            defer { SecretBytes.wipe(&digits) }
            return SecretBytes(copying: digits)
        }
    }

    /// Reads a SeedQR payload, telling the format from its shape: 48 to 96 ASCII digits (four a word) are standard;
    /// 16, 20, 24, 28 or 32 bytes are compact.
    ///
    /// - Throws: `SeedQRError.unrecognizedPayload` for any other shape, `.indexOutOfRange` for a four-digit group
    ///   above 2047, and the `MnemonicError` of an invalid checksum (as `.invalidMnemonic`).
    public static func read(_ payload: SecretBytes) throws(SeedQRError) -> (mnemonic: Mnemonic, format: Format) {
        var bytes = payload.unsafeCopyToArray()
        defer { SecretBytes.wipe(&bytes) }
        let allDigits = bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        if allDigits, bytes.count % 4 == 0, Mnemonic.allowedWordCounts.contains(bytes.count / 4) {
            var phrase: [UInt8] = []
            defer { SecretBytes.wipe(&phrase) }
            for group in 0..<(bytes.count / 4) {
                let index = bytes[(group * 4)..<(group * 4 + 4)].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
                guard index < Mnemonic.englishWordlist.count else {
                    throw .indexOutOfRange(word: group + 1, index: index)
                }
                if group > 0 { phrase.append(UInt8(ascii: " ")) }
                phrase += Mnemonic.englishWordlist[index].utf8
            }
            do {
                return (try Mnemonic(phrase: SecretBytes(copying: phrase)), .standard)
            } catch {
                throw .invalidMnemonic(error)
            }
        }
        guard [16, 20, 24, 28, 32].contains(bytes.count) else { throw .unrecognizedPayload(byteCount: bytes.count) }
        do {
            return (try Mnemonic(entropy: SecretBytes(copying: bytes)), .compact)
        } catch {
            throw .invalidMnemonic(error)
        }
    }

    /// The 11-bit word indexes of the mnemonic (entropy ‖ checksum).
    static func wordIndexes(of mnemonic: Mnemonic) -> [Int] {
        var bytes = mnemonic.entropy.unsafeCopyToArray()
        defer { SecretBytes.wipe(&bytes) }
        bytes.append(SHA256.hash(bytes)[0])
        return (0..<mnemonic.wordCount).map { n in
            (0..<11).reduce(0) { value, b in
                let position = n * 11 + b
                return value << 1 | Int(bytes[position / 8] >> UInt8(7 - position % 8) & 1)
            }
        }
    }
}

/// Errors from reading a SeedQR payload.
public enum SeedQRError: Error, Equatable, Sendable {
    /// The payload is neither 48–96 digits nor 16–32 bytes of entropy; `byteCount` is its length.
    case unrecognizedPayload(byteCount: Int)
    /// A four-digit group of a standard SeedQR names no word (above 2047); `word` is its number (1-based).
    case indexOutOfRange(word: Int, index: Int)
    /// The words do not form a valid BIP39 mnemonic (checksum).
    case invalidMnemonic(MnemonicError)
}
