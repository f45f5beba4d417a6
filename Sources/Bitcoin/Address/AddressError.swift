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

extension AddressError: CustomStringConvertible {
    /// What is wrong with the address, in words.
    public var description: String {
        switch self {
        case .wrongNetwork(let expected, let found):
            "an address of \(found.map(\.rawValue).joined(separator: "/")), not of \(expected.rawValue)"
        case .invalidChecksum: "its checksum does not match: a character is mistyped or missing"
        case .wrongChecksumVariant(let version):
            "its checksum is of the wrong kind for witness version \(version) (BIP350): the address is damaged"
        case .unknownPrefix(let prefix): "no known address starts with version byte \(prefix)"
        case .unknownHumanReadablePart(let hrp): "no network's addresses start with '\(hrp)'"
        case .invalidPayloadLength(let length): "\(length) bytes where an address holds 21"
        case .missingWitnessVersion: "a segwit address without a witness version"
        case .invalidWitnessVersion(let version): "witness version \(version) does not exist"
        case .invalidProgramLength(let version, let length):
            "a witness program of \(length) bytes is not valid for version \(version)"
        case .mixedCase: "upper and lower case mixed"
        case .invalidEncoding(let error): "not an address: \(error)"
        case .noAddressForm: "this output script has no address form"
        }
    }
}
