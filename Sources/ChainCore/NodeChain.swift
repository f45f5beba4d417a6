import Bitcoin

/// The chain a node follows, as it tells it: learnt before a sync (Electrum: the genesis header; Bitcoin Core:
/// `getblockchaininfo`'s `chain`; Esplora: the genesis block hash), so a wallet is never synced from another network.
public struct NodeChain: Sendable, Equatable {
    /// The network, or nil for a chain Airlock does not know (a custom signet, another coin).
    public var network: Network?
    /// Its name for messages: `mainnet`, `testnet3`, `testnet4`, `signet`, `regtest`, or a description of an
    /// unknown chain.
    public var name: String
    /// The genesis block hash (display order hex), when known.
    public var genesisHash: String?

    public init(network: Network?, name: String, genesisHash: String?) {
        self.network = network
        self.name = name
        self.genesisHash = genesisHash
    }

    /// The genesis block hashes of the chains Airlock knows (Bitcoin Core's chainparams).
    public static let knownGenesis: [String: (network: Network, name: String)] = [
        "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f": (.main, "mainnet"),
        "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943": (.test, "testnet3"),
        "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043": (.test, "testnet4"),
        "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6": (.signet, "signet"),
        "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206": (.regtest, "regtest"),
    ]

    /// The chain of a genesis block hash (display order hex, any case).
    public init(genesisHash: String) {
        let hash = genesisHash.lowercased()
        if let known = Self.knownGenesis[hash] {
            self.init(network: known.network, name: known.name, genesisHash: hash)
        } else {
            self.init(
                network: nil, name: "an unknown chain (genesis block \(hash.prefix(16))…)", genesisHash: hash)
        }
    }

    /// The chain of Bitcoin Core's `getblockchaininfo` `chain` (`main`, `test`, `testnet4`, `signet`, `regtest`);
    /// a default signet is told apart from a custom one by its genesis hash when given.
    public init(coreChain: String, genesisHash: String?) {
        let hash = genesisHash?.lowercased()
        switch coreChain {
        case "main": self.init(network: .main, name: "mainnet", genesisHash: hash)
        case "test": self.init(network: .test, name: "testnet3", genesisHash: hash)
        case "testnet4": self.init(network: .test, name: "testnet4", genesisHash: hash)
        case "regtest": self.init(network: .regtest, name: "regtest", genesisHash: hash)
        case "signet":
            if let hash, Self.knownGenesis[hash] == nil {
                self.init(network: .signet, name: "a custom signet", genesisHash: hash)
            } else {
                self.init(network: .signet, name: "signet", genesisHash: hash)
            }
        default:
            self.init(network: nil, name: "an unknown chain ('\(coreChain.prefix(32))')", genesisHash: hash)
        }
    }

    /// A network's name for messages: mainnet, testnet, signet, regtest.
    public static func displayName(_ network: Network) -> String {
        switch network {
        case .main: "mainnet"
        case .test: "testnet"
        case .signet: "signet"
        case .regtest: "regtest"
        }
    }
}
