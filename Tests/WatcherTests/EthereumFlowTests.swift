import AirgapTransport
import ChainCore
import Ethereum
import Foundation
import Testing

@testable import Watcher
@testable import WatcherEthereum

/// The Ethereum flows of the watcher (issue 28): which chain a command is for, the amounts and gas a user's text gives,
/// and the flows' refusals and reports; each decision with a bad case beside its control.
@Suite("Ethereum flows: chain routing, inputs, send/bump/receive/history reports")
struct EthereumFlowTests {
    static let address = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"

    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("eth-route-\(UUID())").path
    }

    static func file(_ text: String, ending: String = ".txt") throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("route-\(UUID())\(ending)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func route(
        _ request: ChainRouting.Request, images: Payload? = nil, imagesAsked: UnsafeMutablePointer<Bool>? = nil
    ) -> WatcherChain {
        ChainRouting.chain(
            for: request, openStore: { try? Store(directory: $0) },
            readImages: { _ in
                imagesAsked?.pointee = true
                return images
            })
    }

    /// A data directory whose store holds an Ethereum account `eth`, and with `bitcoin` a Bitcoin wallet named so.
    static func dataDirectory(bitcoin: String? = nil) throws -> String {
        let directory = directory()
        let store = try Store(directory: directory)
        _ = try store.addEthereumAccount(
            EthereumAccount(name: "eth", chainID: 1, address: try EthereumAddress(string: address)))
        if let bitcoin { _ = try StoreTests.makeWallet(store, name: bitcoin) }
        return directory
    }

    // MARK: routing

    @Test("token is Ethereum; a wallet-only command with no database stays with Bitcoin and creates none")
    func routingWithoutDatabase() throws {
        let directory = Self.directory()
        #expect(Self.route(.init(command: .token, dataDirectory: directory)) == .ethereum)
        #expect(Self.route(.init(command: .sync, dataDirectory: directory)) == .bitcoin)
        #expect(!Store.exists(in: directory))
        // Control: the same command with a database of Ethereum accounts only.
        #expect(Self.route(.init(command: .sync, dataDirectory: try Self.dataDirectory())) == .ethereum)
    }

    @Test("the wallet decides: a name both chains hold, or an unnamed mix, stays with Bitcoin")
    func routingByWallet() throws {
        let mixed = try Self.dataDirectory(bitcoin: "savings")
        #expect(Self.route(.init(command: .balance, dataDirectory: mixed)) == .bitcoin)
        #expect(Self.route(.init(command: .balance, wallet: "savings", dataDirectory: mixed)) == .bitcoin)
        #expect(Self.route(.init(command: .balance, wallet: "eth", dataDirectory: mixed)) == .ethereum)
        let shared = try Self.dataDirectory(bitcoin: "eth")
        #expect(Self.route(.init(command: .history, wallet: "eth", dataDirectory: shared)) == .bitcoin)
        #expect(
            Self.route(.init(command: .history, wallet: "unknown", dataDirectory: try Self.dataDirectory())) == .bitcoin
        )
    }

    @Test("send goes to Ethereum for a 0x recipient or a token, not for a Bitcoin address")
    func routingSend() throws {
        let directory = Self.directory()
        #expect(Self.route(.init(command: .send, recipient: Self.address, dataDirectory: directory)) == .ethereum)
        #expect(
            Self.route(.init(command: .send, recipient: "bcrt1qexample", token: "ATT", dataDirectory: directory))
                == .ethereum)
        #expect(Self.route(.init(command: .send, recipient: "bcrt1qexample", dataDirectory: directory)) == .bitcoin)
        // 0x and 39 hex digits is no address.
        #expect(
            Self.route(.init(command: .send, recipient: String(Self.address.dropLast()), dataDirectory: directory))
                == .bitcoin)
    }

    @Test("import: an hdkey or addresses (text or file) are Ethereum; a descriptor or a mixed file are not")
    func routingImport() throws {
        let directory = Self.directory()
        func chain(_ inputs: [String]) -> WatcherChain {
            Self.route(.init(command: .importAccount, inputs: inputs, dataDirectory: directory))
        }
        #expect(chain(["UR:CRYPTO-HDKEY/OXAXHDCLAOJ"]) == .ethereum)
        #expect(chain([try Self.file("ur:crypto-hdkey/oxaxhdclaoj\n")]) == .ethereum)
        #expect(chain([Self.address]) == .ethereum)
        #expect(
            chain([try Self.file("\(Self.address)\n\n0x" + String(repeating: "ab", count: 20) + "\n")]) == .ethereum)
        #expect(chain([try Self.file("\(Self.address)\nwpkh([73c5da0a/84h/0h/0h]xpub…)\n")]) == .bitcoin)
        #expect(chain([try Self.file(StoreTests.descriptor)]) == .bitcoin)
        #expect(chain(["/no/such/file"]) == .bitcoin)
    }

    @Test("import of images: Ethereum only when they decode to an hdkey; other files are never decoded")
    func routingImportImages() throws {
        let directory = Self.directory()
        let png = try Self.file("not really an image", ending: ".png")
        let request = ChainRouting.Request(command: .importAccount, inputs: [png], dataDirectory: directory)
        let key = URHDKey(
            keyData: [UInt8](repeating: 2, count: 33), chainCode: nil, origin: nil, children: nil,
            parentFingerprint: nil)
        #expect(Self.route(request, images: .hdKey(key)) == .ethereum)
        #expect(Self.route(request, images: .descriptor(StoreTests.descriptor)) == .bitcoin)
        #expect(Self.route(request, images: nil) == .bitcoin)
        var asked = false
        let text = try Self.file("wpkh(…)")
        let notImages = ChainRouting.Request(command: .importAccount, inputs: [png, text], dataDirectory: directory)
        #expect(Self.route(notImages, images: .hdKey(key), imagesAsked: &asked) == .bitcoin)
        #expect(!asked)
    }

    @Test("broadcast: an eth-signature (text or file) is Ethereum; a PSBT file is not")
    func routingBroadcast() throws {
        let directory = Self.directory()
        func chain(_ input: String) -> WatcherChain {
            Self.route(.init(command: .broadcast, inputs: [input], dataDirectory: directory))
        }
        #expect(chain("ur:eth-signature/oeadtpdagd") == .ethereum)
        #expect(chain(try Self.file("ur:eth-signature/oeadtpdagd\n")) == .ethereum)
        #expect(chain(try Self.file("cHNidP8BAHECAAAAAQ==")) == .bitcoin)
        #expect(chain("ur:crypto-psbt/hdosjojkidjyzmad") == .bitcoin)
    }

    @Test("an input's text: Ethereum payloads are named, anything else is undecided")
    func chainOfText() {
        #expect(ChainRouting.chain(ofText: "  ur:eth-signature/abc \n") == .ethereum)
        #expect(ChainRouting.chain(ofText: Self.address + "\n" + Self.address) == .ethereum)
        #expect(ChainRouting.chain(ofText: "ur:crypto-psbt/abc") == nil)
        #expect(ChainRouting.chain(ofText: Self.address + "\nbc1qexample") == nil)
        #expect(ChainRouting.chain(ofText: "") == nil)
    }

    // MARK: inputs

    @Test("an ETH amount needs its unit; with one it is exact wei")
    func etherAmount() throws {
        #expect(throws: EthereumWalletError.amountWithoutUnit("0.1")) { try EthereumInputs.etherAmount("0.1") }
        #expect(throws: EthereumWalletError.self) { try EthereumInputs.etherAmount("1.5wei") }
        #expect(throws: EthereumWalletError.self) { try EthereumInputs.etherAmount("0.1btc") }
        #expect(try EthereumInputs.etherAmount("0.1eth") == Wei(UInt256(100_000_000_000_000_000)))
        #expect(try EthereumInputs.etherAmount("0.1ETH") == Wei(UInt256(100_000_000_000_000_000)))
        #expect(try EthereumInputs.etherAmount("5gwei") == Wei(UInt256(5_000_000_000)))
        #expect(try EthereumInputs.etherAmount("100wei") == Wei(UInt256(100)))
        #expect(EthereumWalletError.amountWithoutUnit("0.1").description.contains("0.1eth, 0.1gwei or 0.1wei"))
    }

    @Test("fees per gas in gwei: at most 9 decimals")
    func gwei() throws {
        #expect(throws: EthereumWalletError.self) { try EthereumInputs.gwei("1.0000000001", option: "--max-fee") }
        #expect(try EthereumInputs.gwei("1.5", option: "--max-fee") == UInt256(1_500_000_000))
    }

    @Test(
        "gas: a contract call or a contract recipient gets 20% more, a plain transfer its estimate, never overflowing")
    func gasLimit() {
        #expect(EthereumInputs.gasLimit(estimate: 21000, isContractCall: false) == 21000)
        #expect(EthereumInputs.gasLimit(estimate: 50000, isContractCall: false) == 60000)
        #expect(EthereumInputs.gasLimit(estimate: 21000, isContractCall: true) == 25200)
        #expect(EthereumInputs.gasLimit(estimate: .max, isContractCall: true) == .max)
        #expect(EthereumInputs.gasLimit(estimate: .max - 1, isContractCall: false) == .max)
    }

    // MARK: flows

    static func sendOptions(index: Int = 0, amount: String? = "0.1eth", token: String? = nil)
        -> EthereumFlows.SendOptions
    {
        EthereumFlows.SendOptions(
            wallet: nil, to: "0x" + String(repeating: "34", count: 20), amount: amount, max: false, token: token,
            maxFee: nil, priorityFee: nil, gasLimit: nil, index: index)
    }

    static func json(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("send refuses a missing address index or an unfollowed token before asking the node; builds otherwise")
    func send() async throws {
        let (key, _, _) = try EthereumWalletTests.hdKey()
        let store = try EthereumWalletTests.store()
        let account = try store.addEthereumAccount(try EthereumAccount(name: "main", chainID: 1, hdKey: key, count: 1))
        let node = FixedEthereumNode(chain: 1)
        node.balances[account.entries[0].address] = Wei(UInt256(1_000_000_000_000_000_000))
        var asked = 0
        let provider: EthereumFlows.NodeProvider = {
            asked += 1
            return node
        }
        await #expect(throws: EthereumWalletError.invalid("the account has no address index 3")) {
            _ = try await EthereumFlows.send(Self.sendOptions(index: 3), store: store, node: provider)
        }
        await #expect(throws: EthereumWalletError.self) {
            _ = try await EthereumFlows.send(Self.sendOptions(token: "ATT"), store: store, node: provider)
        }
        #expect(asked == 0)
        await #expect(throws: EthereumWalletError.amountWithoutUnit("0.1")) {
            _ = try await EthereumFlows.send(Self.sendOptions(amount: "0.1"), store: store, node: provider)
        }
        let report = try await EthereumFlows.send(Self.sendOptions(), store: store, node: provider)
        #expect(report.record.value == Wei(UInt256(100_000_000_000_000_000)))
        #expect(report.record.gasLimit == 21000)
        #expect(report.ur.hasPrefix("ur:eth-sign-request/"))
        #expect(report.summary.hasPrefix("request \(report.record.requestID): 0.1"))
        let json = try Self.json(report.json(written: ["r.png"]))
        #expect(json["request_id"] as? String == report.record.requestID)
        #expect(json["gas_limit"] as? Int == 21000)
        #expect(json["value"] as? String == "100000000000000000")
        #expect(json["token"] == nil)
        #expect(try store.ethereumTransactions(accountID: account.id ?? 0).count == 1)
    }

    @Test("bump refuses a transaction the account did not build; finds one by hash or request id in any case")
    func bumpLookup() throws {
        let (key, _, _) = try EthereumWalletTests.hdKey()
        let account = try EthereumAccount(name: "main", chainID: 1, hdKey: key, count: 1)
        let built = try EthereumSpend.build(
            account: account, entry: account.entries[0], to: account.entries[0].address,
            payment: .ether(Wei(UInt256(1))), fees: .init(maxFeePerGas: UInt256(2), maxPriorityFeePerGas: UInt256(1)),
            gasLimit: 21000, nonce: 0, balance: Wei(UInt256(1_000_000)), tokenBalance: nil)
        var record = built.record
        record.hash = "0x" + String(repeating: "ab", count: 32)
        #expect(throws: EthereumWalletError.invalid("the account built no transaction 0x12")) {
            try EthereumFlows.record("0x12", in: [record])
        }
        #expect(try EthereumFlows.record("0x" + String(repeating: "AB", count: 32), in: [record]) == record)
        #expect(try EthereumFlows.record(record.requestID.uppercased(), in: [record]) == record)
    }

    @Test("receive: a token not followed is refused; ETH and token URIs carry the chain and exact base units")
    func receive() throws {
        let store = try EthereumWalletTests.store()
        let address = try EthereumAddress(string: Self.address)
        _ = try store.addEthereumAccount(EthereumAccount(name: "eth", chainID: 5, address: address))
        let contract = "0x" + String(repeating: "12", count: 20)
        #expect(throws: EthereumWalletError.self) {
            _ = try EthereumFlows.receive(wallet: nil, index: 0, amount: "1", token: contract, store: store)
        }
        #expect(throws: EthereumWalletError.invalid("the account has no address index 1")) {
            _ = try EthereumFlows.receive(wallet: nil, index: 1, amount: nil, token: nil, store: store)
        }
        let report = try EthereumFlows.receive(wallet: nil, index: 0, amount: "0.5eth", token: nil, store: store)
        #expect(report.uri == "ethereum:\(address.checksummed)@5?value=500000000000000000")
        let json = try Self.json(report.json(qr: nil))
        #expect(json["address"] as? String == address.checksummed && json["qr"] == nil)
    }

    @Test("history JSON: a token not followed has a null symbol (not absent) and its amount in base units")
    func historyJSON() throws {
        let token = try EthereumAddress(string: "0x" + String(repeating: "12", count: 20))
        let me = try EthereumAddress(string: Self.address)
        let transfer = EthereumTransfer(
            txHash: "0x" + String(repeating: "cd", count: 32), logIndex: 0, token: token, from: token, to: me,
            amount: UInt256(1500), block: 7)
        let unfollowed = EthereumHistoryReport(transactions: [], transfers: [transfer], tokens: [])
        let object = try Self.json(unfollowed.json)
        let entry = try #require((object["transfers"] as? [[String: Any]])?.first)
        #expect(entry["symbol"] is NSNull)
        #expect(
            unfollowed.lines == [
                "transfer  block 7 1500 base units of \(token) (a token not followed) \(token) -> \(me)"
            ])
        let followed = EthereumHistoryReport(
            transactions: [], transfers: [transfer],
            tokens: [EthereumToken(contract: token, symbol: "ATT", name: "A", decimals: 3, balances: [:])])
        let named = try #require((try Self.json(followed.json)["transfers"] as? [[String: Any]])?.first)
        #expect(named["symbol"] as? String == "ATT")
        #expect(followed.lines == ["transfer  block 7 1.500 ATT \(token) -> \(me)"])
    }
}
