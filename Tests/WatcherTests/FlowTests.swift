import AirgapTransport
import Bitcoin
import ChainCore
import Foundation
import Testing

@testable import Watcher
@testable import WatcherFlows

/// The watcher's command flows (issue 28): what `node`, `import`, `receive`, `history`, `sync` and `wallets delete`
/// decide, each with the case that must be refused (or warned about) beside the one that goes through.
@Suite("Watcher flows: node, import, receive, history, sync, wallets delete")
struct FlowTests {
    static func store() throws -> Store { try Store(directory: StoreTests.tempDir()) }

    static func importDescriptor(_ store: Store, _ descriptor: String = StoreTests.descriptor, name: String? = nil)
        throws -> WalletImport.Report
    {
        try WalletImport.run(
            payload: .descriptor(descriptor), options: .init(name: name, network: nil)
        ) { store }
    }

    // MARK: node

    @Test("no node set: node show/test is a usage error naming the chain asked for; a set node is chosen")
    func nodeChoice() throws {
        let store = try Self.store()
        #expect(throws: NodeSettings.NotConfigured(nil)) { try NodeSettings.chosen(store: store, chain: nil) }
        #expect(NodeSettings.NotConfigured(nil).failureKind == .usage)
        try NodeSettings.set(store: store, chain: .btc, url: "electrum://127.0.0.1:50001", proxy: "socks5h://p:9050")
        #expect(throws: NodeSettings.NotConfigured(.eth)) { try NodeSettings.chosen(store: store, chain: .eth) }
        #expect(try NodeSettings.chosen(store: store, chain: nil) == (true, false))
        #expect(try NodeSettings.chosen(store: store, chain: .btc) == (true, false))
        // A `node set` without --proxy removes the proxy of the one before.
        try NodeSettings.set(store: store, chain: .btc, url: "electrum://127.0.0.1:50002", proxy: nil)
        let shown = try NodeSettings.show(store: store, chain: nil) { _, url, proxy in .init(url: url, proxy: proxy) }
        #expect(shown == .init(bitcoin: .init(url: "electrum://127.0.0.1:50002", proxy: nil), ethereum: nil))
        #expect(shown.lines == ["bitcoin: electrum://127.0.0.1:50002"])
    }

    @Test("node test: a mainnet wallet on a regtest node is tested on regtest's rules and warned about; a fit is not")
    func nodeTestBitcoin() async throws {
        let store = try Self.store()
        _ = try Self.importDescriptor(store, name: "savings")
        let wallet = try store.wallet(named: "savings")
        let made = NetworkCheckTests.Made()
        func source(_ chain: NodeChain) -> (Network) -> any ChainSource {
            { network in
                made.networks.append(network)
                var source = FixedChainSource(tipHeight: 7, transactions: [])
                source.chain = chain
                return source
            }
        }
        let regtest = NodeChain(genesisHash: NetworkCheckTests.genesis[.regtest]!)
        let (answer, warning) = try await NodeTest.bitcoin(store: store, wallet: wallet, makeSource: source(regtest))
        #expect(made.networks == [.main, .regtest])
        #expect(answer.chain == "regtest" && answer.height == 7 && answer.backend == "fixed")
        #expect(warning?.hasPrefix("wallet 'savings' is mainnet, the node is regtest") == true)
        // Control: a mainnet node, one source, no warning.
        made.networks = []
        let main = NodeChain(coreChain: "main", genesisHash: nil)
        let (_, none) = try await NodeTest.bitcoin(store: store, wallet: wallet, makeSource: source(main))
        #expect(made.networks == [.main] && none == nil)
    }

    @Test("node test: an Ethereum account on another chain id than the node is warned about; the same chain is not")
    func nodeTestEthereum() async throws {
        let (key, _, _) = try EthereumWalletTests.hdKey()
        let account = try EthereumAccount(name: "main", chainID: 1, hdKey: key, count: 1)
        let (answer, warning) = try await NodeTest.ethereum(node: FixedEthereumNode(chain: 5), account: account)
        #expect(answer == .init(url: "fixed-eth", chainId: 5, block: 100))
        #expect(
            warning?.hasPrefix(
                "account 'main' is on chain id 1 (Ethereum mainnet), the node fixed-eth is on chain id 5") == true)
        let (_, none) = try await NodeTest.ethereum(node: FixedEthereumNode(chain: 1), account: account)
        #expect(none == nil)
        var report = NodeTest.Report()
        report.ethereum = answer
        #expect(report.lines == ["fixed-eth: Ethereum chain id 5, block 100"])
    }

    // MARK: import

    @Test("import: a bad --birthday or --section is refused before the store is opened; a good import is stored")
    func importRefusals() throws {
        let opened = NetworkCheckTests.Made()
        let open: () throws -> Store = {
            opened.networks.append(.main)
            return try Self.store()
        }
        let payload = Payload.descriptor(StoreTests.descriptor)
        #expect(throws: WalletImportError.birthday("yesterday")) {
            try WalletImport.run(payload: payload, options: .init(birthday: "yesterday"), openStore: open)
        }
        #expect(WalletImportError.birthday("x").failureKind == .usage)
        #expect(throws: WalletImportError.unknownSection("bip99")) {
            try WalletImport.pick(["wpkh(x)"], section: "bip99")
        }
        #expect(throws: WalletImportError.noSection("bip86")) { try WalletImport.pick(["wpkh(x)"], section: "bip86") }
        #expect(opened.networks.isEmpty)
        // Control: the same account with a good birthday.
        let report = try WalletImport.run(
            payload: payload, options: .init(name: "savings", birthday: "2024-03-01"), openStore: open)
        #expect(opened.networks.count == 1)
        #expect(report.name == "savings" && report.network == .main && report.birthday?.description == "2024-03-01")
        #expect(report.firstAddress == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
        #expect(!report.networkFromNode && report.lines.first == "imported wallet 'savings' (main, descriptor)")
    }

    @Test("import: without --section an account's descriptors are taken in the order bip84, bip86, bip49, bip44")
    func sectionOrder() throws {
        #expect(try WalletImport.pick(["pkh(a)", "tr(b)", "wpkh(c)"], section: nil) == "wpkh(c)")
        #expect(try WalletImport.pick(["pkh(a)", "tr(b)"], section: nil) == "tr(b)")
        #expect(try WalletImport.pick(["pkh(a)", "tr(b)"], section: "bip44") == "pkh(a)")
        #expect(throws: WalletImportError.noDescriptor) { try WalletImport.pick([], section: nil) }
        #expect(throws: WalletImportError.notAnAccount("psbt")) {
            try WalletImport.accountText(of: .psbt([0x70]), section: nil)
        }
    }

    // MARK: receive

    @Test("BIP21: the amount in BTC without trailing zeros, the label percent-encoded, no query without either")
    func bip21() throws {
        let address = "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu"
        #expect(WalletReceive.uri(address: address, amount: nil, label: nil) == "bitcoin:\(address)")
        #expect(WalletReceive.bip21Amount(try Amount(sats: 100_000)) == "0.001")
        #expect(WalletReceive.bip21Amount(try Amount(sats: 100_000_000)) == "1")
        #expect(
            WalletReceive.uri(address: address, amount: try Amount(sats: 1), label: "invoice 42&x=1")
                == "bitcoin:\(address)?amount=0.00000001&label=invoice%2042%26x%3D1")
    }

    @Test("receive: the same address until it is used, a fresh one with --new, the label stored for it")
    func receive() throws {
        let store = try Self.store()
        _ = try Self.importDescriptor(store)
        let wallet = try store.wallet(named: nil)
        let first = try WalletReceive.address(store: store, wallet: wallet, fresh: false, amount: nil, label: "rent")
        let again = try WalletReceive.address(store: store, wallet: wallet, fresh: false, amount: nil, label: nil)
        let fresh = try WalletReceive.address(store: store, wallet: wallet, fresh: true, amount: nil, label: nil)
        #expect(first.address == again.address && first.index == 0)
        #expect(fresh.index == 1 && fresh.address != first.address)
        let labels = try store.labels(walletID: try wallet.requireID())
        #expect(labels.contains { $0.type == "addr" && $0.ref == first.address && $0.label == "rent" })
        #expect(first.uri == "bitcoin:\(first.address)?label=rent")
    }

    // MARK: history and sync

    @Test("confirmations: 0 unconfirmed or above the synced tip, 1 in the tip's block, tip - height + 1 below it")
    func confirmations() {
        #expect(WalletHistory.confirmations(height: nil, tip: 100) == 0)
        #expect(WalletHistory.confirmations(height: 101, tip: 100) == 0)
        #expect(WalletHistory.confirmations(height: 5, tip: nil) == 0)
        #expect(WalletHistory.confirmations(height: 100, tip: 100) == 1)
        #expect(WalletHistory.confirmations(height: 91, tip: 100) == 10)
    }

    @Test("sync then history: the balance reached, each payment's amount, confirmations and escaped label")
    func syncAndHistory() async throws {
        let store = try Self.store()
        _ = try Self.importDescriptor(store)
        let wallet = try store.wallet(named: nil)
        let script = try Account(record: wallet).derive(.external, index: 0).script
        let paid = try TestTransactions.funding(script, sats: 150_000, seed: 1)
        let pending = try TestTransactions.funding(script, sats: 2_000, seed: 2)
        let source = FixedChainSource(tipHeight: 10, transactions: [paid, pending], heights: [paid.txid: 8])
        let report = try await SyncFlow.run(store: store, wallet: wallet, source: source)
        #expect(report.balance == (try Amount(sats: 152_000)) && report.height == 10 && report.transactions == 2)
        #expect(report.line == "synced 'default' to height 10: 2 transactions, balance 0.00152000 BTC")
        try store.upsertLabels(
            [Label(type: "tx", ref: paid.txid.hexString, label: "pay\u{202E}day")], walletID: try wallet.requireID())
        let history = try WalletHistory.report(store: store, wallet: wallet)
        let confirmed = try #require(history.entries.first { $0.txid == paid.txid })
        let unconfirmed = try #require(history.entries.first { $0.txid == pending.txid })
        #expect(confirmed.received == (try Amount(sats: 150_000)) && confirmed.net == 150_000)
        #expect(confirmed.confirmations == 3 && unconfirmed.confirmations == 0)
        #expect(confirmed.line.contains("+0.00150000 BTC  3 confirmations (block 8)"))
        #expect(confirmed.line.hasSuffix("\"pay\\u202eday\""))
        #expect(unconfirmed.line.contains("unconfirmed"))
        // Control: a wallet with no transactions says to sync.
        let empty = try Self.store()
        _ = try Self.importDescriptor(empty)
        #expect(
            try WalletHistory.report(store: empty, wallet: try empty.wallet(named: nil)).lines == [
                "no transactions (run sync first)"
            ])
    }

    // MARK: wallets delete

    @Test("wallets delete: an unknown name lists the wallets, a declined confirmation keeps it, a yes deletes it")
    func deletion() throws {
        let store = try Self.store()
        _ = try Self.importDescriptor(store, name: "savings")
        #expect(throws: WalletDeletion.Failure.notFound("spending", known: ["savings"])) {
            try WalletDeletion.run(store: store, name: "spending", chain: nil) { _ in true }
        }
        var asked: String?
        #expect(throws: WalletDeletion.Failure.declined) {
            try WalletDeletion.run(store: store, name: "savings", chain: nil) { question in
                asked = question
                return false
            }
        }
        #expect(asked == "Delete wallet 'savings' (0 transactions, 0 labels) from this watcher?")
        #expect(WalletDeletion.Failure.declined.failureKind == .refused)
        #expect(try store.wallets().map(\.name) == ["savings"])
        // Control: confirmed.
        let report = try WalletDeletion.run(store: store, name: "savings", chain: nil) { _ in true }
        #expect(report.chain == "bitcoin" && report.line == "deleted wallet 'savings' (0 transactions, 0 labels)")
        #expect(try store.wallets().isEmpty)
    }

    // MARK: balance, addresses, utxos, wallets

    @Test("coin control: no outpoint is a usage error, a bad one is named; frozen coins show in balance and utxos")
    func coinControl() async throws {
        #expect(throws: WalletQueries.FreezeError.noOutpoint) { try WalletQueries.outpoints([]) }
        #expect(WalletQueries.FreezeError.noOutpoint.failureKind == .usage)
        #expect(throws: WalletQueries.FreezeError.notAnOutpoint("abc:0")) { try WalletQueries.outpoints(["abc:0"]) }
        let store = try Self.store()
        _ = try Self.importDescriptor(store)
        let wallet = try store.wallet(named: nil)
        #expect(
            try WalletQueries.balance(store: store, wallet: wallet).lines.last
                == "total:       0.00000000 BTC (never synced)")
        let script = try Account(record: wallet).derive(.external, index: 0).script
        let paid = try TestTransactions.funding(script, sats: 50_000, seed: 3)
        _ = try await SyncFlow.run(
            store: store, wallet: wallet,
            source: FixedChainSource(tipHeight: 5, transactions: [paid], heights: [paid.txid: 5]))
        let before = try WalletQueries.balance(store: store, wallet: wallet)
        #expect(before.frozen == .zero && !before.lines.contains { $0.hasPrefix("frozen:") })
        let coin = "\(paid.txid):0"
        let report = try WalletQueries.setFrozen(
            store: store, wallet: wallet, outpoints: try WalletQueries.outpoints([coin]), frozen: true)
        #expect(report.lines == ["frozen: \(coin)"])
        let after = try WalletQueries.balance(store: store, wallet: wallet)
        let fifty = try Amount(sats: 50_000)
        #expect(after.frozen == fifty && after.total == fifty)
        #expect(after.lines.contains("frozen:      0.00050000 BTC (of the above)"))
        #expect(after.lines.last == "total:       0.00050000 BTC (synced to height 5)")
        let utxos = try WalletQueries.utxos(store: store, wallet: wallet)
        #expect(utxos.entries.count == 1 && utxos.entries[0].line.hasSuffix("height 5  frozen"))
        #expect(utxos.entries[0].address == "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu")
    }

    @Test("addresses: one keychain, each label with hidden characters escaped; wallets: the Bitcoin wallets listed")
    func addressesAndWallets() throws {
        let store = try Self.store()
        _ = try Self.importDescriptor(store, name: "savings")
        let wallet = try store.wallet(named: nil)
        #expect(
            try WalletQueries.addresses(store: store, wallet: wallet, keychain: .external).lines == [
                "no addresses yet (run sync, or receive)"
            ])
        _ = try WalletReceive.address(store: store, wallet: wallet, fresh: false, amount: nil, label: "a\u{202E}b")
        let receive = try WalletQueries.addresses(store: store, wallet: wallet, keychain: .external)
        let first = try #require(receive.entries.first)
        #expect(first.line == "0\tbc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu\tunused\ta\\u202eb")
        #expect(
            try WalletQueries.addresses(store: store, wallet: wallet, keychain: .internal).entries.allSatisfy {
                $0.record.keychain == .internal
            })
        let wallets = try WalletQueries.wallets(store: store)
        #expect(wallets.entries == [.bitcoin(wallet)])
        #expect(wallets.entries[0].line.hasPrefix("savings\tbitcoin main\twpkh([73c5da0a/84h/0h/0h]xpub6CatWdiZiod"))
        #expect(wallets.emptyHint == nil)
        #expect(try WalletQueries.wallets(store: try Self.store()).emptyHint != nil)
    }

    // MARK: backup, restore, labels

    @Test("backup then restore: the wallets come back; text that is no backup is refused and nothing is restored")
    func backupRestore() throws {
        let store = try Self.store()
        _ = try Self.importDescriptor(store, name: "savings")
        let (data, wallets) = try BackupFlow.backup(store: store)
        #expect(wallets == ["savings"])
        let target = try Self.store()
        #expect(throws: BackupError.invalid("x.json is not backup JSON")) {
            try BackupFlow.read(Data("{\"wallets\": 1}".utf8), name: "x.json")
        }
        #expect(try target.wallets().isEmpty)
        let report = try BackupFlow.restore(try BackupFlow.read(data, name: "b.json"), store: target, force: false)
        #expect(report.restored == ["savings"] && report.lines[0] == "restored 1 wallet(s): savings")
        #expect(try target.wallets().map(\.name) == ["savings"])
    }

    @Test("labels import: a bad line stores nothing and opens no wallet; good lines are stored and exported again")
    func labels() throws {
        let store = try Self.store()
        _ = try Self.importDescriptor(store, name: "savings")
        let wallet = try store.wallet(named: nil)
        var opened = 0
        let open: () throws -> (Store, WalletRecord) = {
            opened += 1
            return (store, wallet)
        }
        let good = #"{"type":"tx","ref":"\#(String(repeating: "ab", count: 32))","label":"rent"}"#
        #expect(throws: LabelError.self) { try BackupFlow.importLabels(good + "\nnot json\n", openWallet: open) }
        #expect(opened == 0)
        #expect(try store.labels(walletID: try wallet.requireID()).isEmpty)
        let report = try BackupFlow.importLabels(good + "\n", openWallet: open)
        #expect(report.imported == 1 && report.line == "imported 1 labels into 'savings'")
        let (text, count) = try BackupFlow.exportLabels(store: store, wallet: wallet)
        #expect(count == 1 && text.contains("\"rent\""))
    }
}
