/// Errors from parsing an address or deriving one from a scriptPubKey.
public enum AddressError: Error, Equatable, Sendable {
    /// The address is valid, but for other networks than the one asked for.
    case wrongNetwork(expected: Network, found: [Network])
    /// A base58check or bech32 checksum does not match.
    case invalidChecksum
    /// A bech32 checksum is valid but of the wrong variant: witness v0 needs bech32, v1+ needs bech32m (BIP350).
    case wrongChecksumVariant(witnessVersion: Int)
    /// A base58 address whose version byte is no known address prefix.
    case unknownPrefix(UInt8)
    /// A bech32 string whose human-readable part belongs to no known network.
    case unknownHumanReadablePart(String)
    /// A base58 address whose payload is not 1 version byte + 20 hash bytes.
    case invalidPayloadLength(Int)
    /// A segwit address without data (no witness version).
    case missingWitnessVersion
    /// A segwit witness version above 16.
    case invalidWitnessVersion(Int)
    /// A witness program outside 2...40 bytes, or not 20 or 32 bytes for version 0.
    case invalidProgramLength(version: Int, length: Int)
    /// A bech32 address mixes upper and lower case.
    case mixedCase
    /// The text is neither valid base58 nor valid bech32; the underlying decoding error.
    case invalidEncoding(EncodingError)
    /// The scriptPubKey has no address form (P2PK, bare multisig, OP_RETURN or non-standard).
    case noAddressForm(Script)
}
