import Bitcoin
import ChainCore
import Foundation
import Testing

@testable import Watcher

/// The node's chain is learnt before a sync: a wallet of another network is refused with both names, a wallet of
/// test keys with no network named takes the node's test chain (stored), nothing else changes.
@Suite("NetworkCheck: the wallet's network against the node's chain")
struct NetworkCheckTests {
    static let mainDescriptor = StoreTests.descriptor
    static let testDescriptor =
        "wpkh([73c5da0a/84h/1h/0h]tpubDC8msFGeGuwnKG9Upg7DM2b4DaRqg3CUZa5g8v2SRQ6K4NSkxUgd7HsL2XVWbVm39yBA4LAxysQAm397zwQSQoQgewGiYZqrA9DsP4zbQ1M/<0;1>/*)"

    static let genesis: [Network: String] = [
        .main: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
        .test: "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
        .signet: "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6",
        .regtest: "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206",
    ]

    /// Imports `descriptor` as `import` does (network named or not) and records how its network was decided.
    static func imported(_ store: Store, _ descriptor: String, network: Network? = nil, name: String = "savings")
        throws -> WalletRecord
    {
        let account = try AccountImport.parse(descriptor, network: network)
        let record = try store.createWallet(
            WalletRecord(
                name: name, network: account.network, gapLimit: 20,
                descriptors: [.external: account.external.description, .internal: account.change?.description ?? ""]))
        try store.setNetworkSource(account.networkSource, walletName: name)
        return record
    }

    /// Connects `wallet` to a fixed source on `chain`; returns the outcome and the networks sources were made for.
    static func connect(_ store: Store, _ wallet: WalletRecord, chain: NodeChain) async throws
        -> (NetworkCheck.Outcome, [Network])
    {
        let made = Made()
        let outcome = try await NetworkCheck.connect(store: store, wallet: wallet) { network in
            made.networks.append(network)
            var source = FixedChainSource(tipHeight: 10, transactions: [])
            source.chain = chain
            return source
        }
        return (outcome, made.networks)
    }

    final class Made: @unchecked Sendable { var networks: [Network] = [] }

    @Test("genesis hashes and Core's chain names map to the networks, an unknown genesis to none")
    func chains() {
        #expect(NodeChain(genesisHash: Self.genesis[.regtest]!).network == .regtest)
        #expect(NodeChain(genesisHash: Self.genesis[.main]!.uppercased()).name == "mainnet")
        #expect(
            NodeChain(genesisHash: "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043").name
                == "testnet4")
        #expect(NodeChain(genesisHash: String(repeating: "ab", count: 32)).network == nil)
        #expect(NodeChain(coreChain: "regtest", genesisHash: nil).network == .regtest)
        #expect(NodeChain(coreChain: "testnet4", genesisHash: nil).network == .test)
        #expect(
            NodeChain(coreChain: "signet", genesisHash: String(repeating: "cd", count: 32)).name == "a custom signet")
        #expect(NodeChain(coreChain: "liquidv1", genesisHash: nil).network == nil)
    }

    @Test("a mainnet wallet on a regtest node is refused with both names; on a mainnet node it goes on")
    func mainnetOnRegtest() async throws {
        let store = try Store(directory: StoreTests.tempDir())
        let wallet = try Self.imported(store, Self.mainDescriptor)
        #expect(try store.networkSource(walletName: "savings") == .given)
        do {
            _ = try await Self.connect(store, wallet, chain: NodeChain(genesisHash: Self.genesis[.regtest]!))
            Issue.record("a mainnet wallet was let through on regtest")
        } catch let error as ChainError {
            guard case .wrongChain(let message) = error else { throw error }
            #expect(message.hasPrefix("wallet 'savings' is mainnet, the node is regtest"))
            #expect(message.contains("airlock-signer init --network regtest"))
        }
        #expect(try store.wallet(named: "savings").network == .main)
        // The control: the same wallet on a mainnet node.
        let (outcome, made) = try await Self.connect(
            store, wallet, chain: NodeChain(coreChain: "main", genesisHash: nil))
        #expect(outcome.adopted == nil && outcome.wallet.network == .main && made == [.main])
    }

    @Test("a tpub wallet with no network named takes the node's regtest, stores it, and its addresses follow")
    func tpubAdoptsRegtest() async throws {
        let store = try Store(directory: StoreTests.tempDir())
        let wallet = try Self.imported(store, Self.testDescriptor)
        #expect(wallet.network == .test)
        #expect(try store.networkSource(walletName: "savings") == .keys)
        let id = try wallet.requireID()
        // An address shown before the first sync (receive) and its label.
        let first = try Account(record: wallet).derive(.external, index: 0)
        #expect(first.address.hasPrefix("tb1"))
        try store.write { db in
            try db.execute(
                sql: "INSERT INTO address (wallet_id, keychain, idx, script, address) VALUES (?, 0, 0, ?, ?)",
                arguments: [id, Data(first.script.bytes), first.address])
            try db.execute(
                sql: "INSERT INTO label (wallet_id, type, ref, label) VALUES (?, 'addr', ?, 'rent')",
                arguments: [id, first.address])
        }
        let (outcome, made) = try await Self.connect(
            store, wallet, chain: NodeChain(genesisHash: Self.genesis[.regtest]!))
        #expect(made == [.test, .regtest])  // the source is made again for the adopted network
        #expect(outcome.wallet.network == .regtest)
        #expect(outcome.adopted?.contains("now follows the node's network, regtest") == true)
        #expect(try store.wallet(named: "savings").network == .regtest)
        #expect(try store.networkSource(walletName: "savings") == .node)
        let addresses = try store.addresses(walletID: id)
        #expect(addresses.map(\.address) == [try Account(record: outcome.wallet).derive(.external, index: 0).address])
        #expect(addresses[0].address.hasPrefix("bcrt1"))
        let labels = try store.labels(walletID: id)
        #expect(labels.map(\.ref) == [addresses[0].address])
        // Once taken, the network is fixed: a testnet node now is a mismatch, and the regtest node goes on quietly.
        let again = try store.wallet(named: "savings")
        await #expect(throws: ChainError.self) {
            _ = try await Self.connect(store, again, chain: NodeChain(coreChain: "test", genesisHash: nil))
        }
        let (quiet, _) = try await Self.connect(store, again, chain: NodeChain(coreChain: "regtest", genesisHash: nil))
        #expect(quiet.adopted == nil)
    }

    @Test("a test wallet whose network was named is refused on another test chain, not moved")
    func namedTestnetOnRegtest() async throws {
        let store = try Store(directory: StoreTests.tempDir())
        let wallet = try Self.imported(store, Self.testDescriptor, network: .test)
        #expect(try store.networkSource(walletName: "savings") == .given)
        do {
            _ = try await Self.connect(store, wallet, chain: NodeChain(coreChain: "regtest", genesisHash: nil))
            Issue.record("a named testnet wallet was moved to regtest")
        } catch ChainError.wrongChain(let message) {
            #expect(message.hasPrefix("wallet 'savings' is testnet, the node is regtest"))
            #expect(message.contains("--network regtest"))
        }
        #expect(try store.wallet(named: "savings").network == .test)
        // A tpub wallet never takes mainnet: the keys say test.
        let keys = try Self.imported(store, Self.testDescriptor, name: "keys")
        await #expect(throws: ChainError.self) {
            _ = try await Self.connect(store, keys, chain: NodeChain(genesisHash: Self.genesis[.main]!))
        }
        #expect(try store.wallet(named: "keys").network == .test)
    }

    @Test("an unknown chain is refused except for a signet wallet (a custom signet)")
    func unknownChain() throws {
        let unknown = NodeChain(genesisHash: String(repeating: "ab", count: 32))
        let custom = NodeChain(coreChain: "signet", genesisHash: String(repeating: "ab", count: 32))
        let main = WalletRecord(name: "m", network: .main, gapLimit: 20, descriptors: [:])
        let signet = WalletRecord(name: "s", network: .signet, gapLimit: 20, descriptors: [:])
        #expect(throws: ChainError.self) {
            try NetworkCheck.decide(wallet: main, networkSource: .given, chain: unknown)
        }
        #expect(try NetworkCheck.decide(wallet: signet, networkSource: .given, chain: custom) == .proceed)
        #expect(throws: ChainError.self) {
            try NetworkCheck.decide(wallet: signet, networkSource: .given, chain: unknown)
        }
    }
}
