/// Errors from decoding a WIF (wallet import format) private key.
///
/// - SeeAlso: https://en.bitcoin.it/wiki/Wallet_import_format
public enum WIFError: Error, Equatable, Sendable {
    /// Base58 text with a character outside the alphabet, or too short to hold a checksum.
    case invalidBase58(EncodingError)
    /// The base58check checksum does not match.
    case invalidChecksum
    /// A payload that is neither 33 bytes (uncompressed) nor 34 bytes (compressed), with the count found.
    case invalidLength(Int)
    /// A first byte that is no WIF prefix (0x80 mainnet, 0xEF test networks).
    case unknownPrefix(UInt8)
    /// A 34-byte payload whose last byte is not the compression flag 0x01.
    case invalidCompressionFlag(UInt8)
    /// The 32 bytes are 0 or not below the curve order.
    case invalidPrivateKey
}
