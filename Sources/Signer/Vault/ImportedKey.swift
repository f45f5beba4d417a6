public import Bitcoin
public import BitcoinCrypto
public import Ethereum

/// A private key imported into the vault (`airlock-signer key import`): sealed inside the vault's payload with the
/// seed, never in the clear header (docs/formats.md).
public struct ImportedKey: Sendable {
    /// The chain the key was imported for.
    public enum Chain: UInt8, Sendable, CaseIterable {
        case bitcoin = 0
        case ethereum = 1

        /// `btc` or `eth`, as the command line spells it.
        public var name: String { self == .bitcoin ? "btc" : "eth" }
    }

    /// Its chain.
    public let chain: Chain
    /// The key (its secret in `SecretBytes`).
    public let key: PrivateKey
    /// Whether a Bitcoin key's public key is used compressed (the WIF flag); always true for Ethereum.
    public let compressed: Bool
    /// The user's label (may be empty; at most 255 bytes of UTF-8).
    public let label: String

    /// The most labels may take, in UTF-8 bytes.
    public static let maximumLabelLength = 255

    /// A key from its parts.
    public init(chain: Chain, key: PrivateKey, compressed: Bool = true, label: String = "") {
        self.chain = chain
        self.key = key
        self.compressed = chain == .ethereum ? true : compressed
        self.label = String(decoding: Array(label.utf8).prefix(Self.maximumLabelLength), as: UTF8.self)
    }

    /// The key's Ethereum address.
    public var ethereumAddress: EthereumAddress { key.ethereumAddress }

    /// The address it is listed and found by: EIP-55 for Ethereum; for Bitcoin P2WPKH when compressed, else P2PKH.
    public func address(network: Network) -> String {
        switch chain {
        case .ethereum: return ethereumAddress.checksummed
        case .bitcoin:
            let publicKey = key.publicKey
            if compressed { return Address.p2wpkh(publicKey, network: network).description }
            // An uncompressed key's P2PKH: HASH160 of the 65-byte encoding (20 bytes, so the hash always parses).
            guard let hash = try? PubkeyHash(bytes: Hash160.hash(publicKey.uncompressed)) else { return "" }
            return Address(.p2pkh(hash), network: network).description
        }
    }
}
