/// A Bitcoin network and the parameters that encodings depend on: address prefixes, bech32 HRP, WIF and BIP32
/// version bytes, and the BIP44 coin type.
public enum Network: String, Sendable, Hashable, CaseIterable, Codable {
    /// Bitcoin mainnet.
    case main
    /// testnet3 / testnet4.
    case test
    /// The default signet.
    case signet
    /// Local regression-test chains.
    case regtest

    /// Parses `main`, `mainnet`, `bitcoin`, `test`, `testnet`, `testnet3`, `testnet4`, `signet` or `regtest`.
    public init?(name: String) {
        switch name.lowercased() {
        case "main", "mainnet", "bitcoin": self = .main
        case "test", "testnet", "testnet3", "testnet4": self = .test
        case "signet": self = .signet
        case "regtest": self = .regtest
        default: return nil
        }
    }

    /// The bech32 human-readable part of segwit addresses.
    public var bech32HRP: String {
        switch self {
        case .main: "bc"
        case .test, .signet: "tb"
        case .regtest: "bcrt"
        }
    }

    /// The version byte of base58 P2PKH addresses.
    public var p2pkhPrefix: UInt8 { self == .main ? 0x00 : 0x6F }
    /// The version byte of base58 P2SH addresses.
    public var p2shPrefix: UInt8 { self == .main ? 0x05 : 0xC4 }
    /// The version byte of WIF private keys.
    public var wifPrefix: UInt8 { self == .main ? 0x80 : 0xEF }
    /// The BIP44 coin type: 0 on mainnet, 1 on every test network.
    public var coinType: UInt32 { self == .main ? 0 : 1 }
    /// Whether this is mainnet (addresses and keys of test networks share encodings with each other).
    public var isMainnet: Bool { self == .main }

    /// BIP32 version bytes of extended public keys: xpub / tpub.
    public var xpubVersion: UInt32 { self == .main ? 0x0488_B21E : 0x0435_87CF }
    /// BIP32 version bytes of extended private keys: xprv / tprv.
    public var xprvVersion: UInt32 { self == .main ? 0x0488_ADE4 : 0x0435_8394 }
}
