public import BitcoinCrypto
import Codecs

/// A 20-byte Ethereum account address, written with the EIP-55 mixed-case checksum.
///
/// - SeeAlso: https://eips.ethereum.org/EIPS/eip-55
public struct EthereumAddress: Sendable, Hashable, CustomStringConvertible {
    /// The 20 bytes.
    public let bytes: [UInt8]

    /// Takes 20 bytes as an address.
    ///
    /// - Throws: `EthereumAddressError.invalidLength`.
    public init(bytes: some Collection<UInt8>) throws(EthereumAddressError) {
        let input = Array(bytes)
        guard input.count == 20 else { throw .invalidLength(input.count) }
        self.bytes = input
    }

    init(uncheckedBytes: [UInt8]) { self.bytes = uncheckedBytes }

    /// The address of a public key: the last 20 bytes of Keccak-256 of its uncompressed x ‖ y.
    public init(publicKey: PublicKey) {
        self.bytes = Array(Keccak256.hash(publicKey.uncompressed.dropFirst()).suffix(20))
    }

    /// Parses `0x` and 40 hex digits: all lower or all upper case is accepted as is, mixed case must be the EIP-55
    /// checksum.
    ///
    /// - Throws: `EthereumAddressError` naming what is wrong.
    public init(string text: String) throws(EthereumAddressError) {
        guard text.hasPrefix("0x") || text.hasPrefix("0X") else { throw .missingPrefix }
        let body = String(text.dropFirst(2))
        guard body.utf8.count == 40 else { throw .invalidLength(body.utf8.count / 2) }
        guard let raw = Hex.decode(body) else { throw .invalidHex }
        self.bytes = raw
        let hasLower = body.contains { $0.isLowercase }
        let hasUpper = body.contains { $0.isUppercase }
        if hasLower, hasUpper, checksummed != "0x" + body { throw .badChecksum }
    }

    /// The EIP-55 form: hex digit i is upper case when nibble i of Keccak-256(lower-case hex) is 8 or more.
    public var checksummed: String {
        let lower = Hex.encode(bytes)
        let hash = Keccak256.hash(Array(lower.utf8))
        var out = "0x"
        for (i, c) in lower.enumerated() {
            let nibble = i % 2 == 0 ? hash[i / 2] >> 4 : hash[i / 2] & 0x0F
            out.append(nibble >= 8 ? Character(c.uppercased()) : c)
        }
        return out
    }

    /// The EIP-55 form.
    public var description: String { checksummed }
}

/// Errors from reading an Ethereum address.
public enum EthereumAddressError: Error, Equatable, Sendable {
    /// The text does not start with `0x`.
    case missingPrefix
    /// Not 20 bytes (the count found).
    case invalidLength(Int)
    /// A character is not a hex digit.
    case invalidHex
    /// Mixed case that is not the EIP-55 checksum.
    case badChecksum
}

extension EthereumAddressError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .missingPrefix: "an address starts with 0x"
        case .invalidLength(let count): "an address is 20 bytes, not \(count)"
        case .invalidHex: "an address is hex digits"
        case .badChecksum: "the mixed-case checksum (EIP-55) does not match: a character is mistyped"
        }
    }
}
