import AirgapTransport
import Bitcoin
import BitcoinCrypto
import ChainCore
import Ethereum
import Foundation
import SeedBackup
import Synchronization
import TestSupport
import Testing

@testable import Watcher
@testable import WatcherEthereum

/// A node of fixed answers (no socket): one chain id, balances, nonces, token balances, logs and receipts.
final class FixedEthereumNode: EthereumNode, @unchecked Sendable {
    var chain: UInt64
    var tip: UInt64 = 100
    var balances: [EthereumAddress: Wei] = [:]
    var nonces: [EthereumAddress: UInt64] = [:]
    var tokenBalances: [EthereumAddress: UInt256] = [:]
    var logList: [EthLog] = []
    var receipts: [[UInt8]: EthReceipt] = [:]
    /// When set, `eth_getLogs` fails with it: the node breaks after the balances were read.
    var failure: ChainError?

    init(chain: UInt64) { self.chain = chain }

    var displayName: String { "fixed-eth" }
    func chainID() async throws(ChainError) -> UInt64 { chain }
    func blockNumber() async throws(ChainError) -> UInt64 { tip }
    func balance(of address: EthereumAddress, at block: EthBlockTag) async throws(ChainError) -> Wei {
        balances[address] ?? Wei(.zero)
    }
    func transactionCount(of address: EthereumAddress, at block: EthBlockTag) async throws(ChainError) -> UInt64 {
        nonces[address] ?? 0
    }
    func call(_ call: EthCall, at block: EthBlockTag) async throws(ChainError) -> [UInt8] {
        guard let owner = try? EthereumAddress(bytes: call.data.suffix(20)) else {
            throw .protocolViolation("balanceOf without an owner")
        }
        return (tokenBalances[owner] ?? .zero).bigEndianBytes
    }
    func calls(_ calls: [EthCall], at block: EthBlockTag) async throws(ChainError) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for c in calls { out.append(try await call(c, at: block)) }
        return out
    }
    func estimateGas(from: EthereumAddress, to: EthereumAddress, value: Wei, data: [UInt8]) async throws(ChainError)
        -> UInt64
    { 21000 }
    func feeHistory(blocks: Int, percentiles: [Double]) async throws(ChainError) -> EthFeeHistory {
        EthFeeHistory(oldestBlock: 1, baseFeePerGas: [UInt256(1), UInt256(1)], gasUsedRatio: [0], reward: [[.zero]])
    }
    func maxPriorityFeePerGas() async throws(ChainError) -> UInt256 { UInt256(1) }
    func sendRawTransaction(_ raw: [UInt8]) async throws(ChainError) -> [UInt8] { Keccak256.hash(raw) }
    func receipt(hash: [UInt8]) async throws(ChainError) -> EthReceipt? { receipts[hash] }
    func transaction(hash: [UInt8]) async throws(ChainError) -> EthTransactionInfo? { nil }
    func logs(_ filter: EthLogFilter) async throws(ChainError) -> [EthLog] {
        if let failure { throw failure }
        return logList.filter(filter.matches)
    }
}

@Suite("Ethereum accounts in the watcher (no network)")
struct EthereumWalletTests {
    static let chain: UInt64 = 131_277_322_940_537

    struct Fixture: Decodable {
        struct Entry: Decodable {
            let address: String
            let path: String
        }
        let mnemonic: String
        let addresses: [Entry]
    }

    /// The `crypto-hdkey` of m/44'/60'/0' for the fixture's mnemonic, as the signer exports it.
    static func hdKey() throws -> (URHDKey, Fixture, ExtendedPrivateKey) {
        let fixture = try Vectors.json("ethereum/eth_account_fixture.json", as: Fixture.self)
        let master = try ExtendedPrivateKey(seed: Mnemonic(phrase: fixture.mnemonic).seed())
        let account = try master.derive(DerivationPath(string: "m/44'/60'/0'"))
        let key = URHDKey(
            keyData: account.publicKey.compressed, chainCode: account.chainCode,
            origin: URKeypath(
                components: [.index(44, hardened: true), .index(60, hardened: true), .index(0, hardened: true)],
                sourceFingerprint: KeyFingerprint(rawValue: master.fingerprint.value), depth: 3),
            children: URKeypath(components: [.index(0, hardened: false), .wildcard(hardened: false)]),
            parentFingerprint: KeyFingerprint(rawValue: account.parentFingerprint.value))
        return (key, fixture, master)
    }

    static func store() throws -> Store {
        try Store(directory: FileManager.default.temporaryDirectory.appendingPathComponent("eth-\(UUID())").path)
    }

    @Test("a crypto-hdkey gives eth-account's addresses m/44'/60'/0'/0/i")
    func importKey() throws {
        let (key, fixture, _) = try Self.hdKey()
        let account = try EthereumAccount(name: "main", chainID: Self.chain, hdKey: key, count: 10)
        #expect(account.entries.map(\.address.checksummed) == fixture.addresses.prefix(10).map(\.address))
        #expect(account.keypath(index: 3).pathText == "44h/60h/0h/0/3")
    }

    @Test("a private key, a key of another path and a key without chain code are refused")
    func importRefusals() throws {
        let (key, _, _) = try Self.hdKey()
        var bitcoin = key
        bitcoin.origin = URKeypath(
            components: [.index(84, hardened: true), .index(0, hardened: true), .index(0, hardened: true)],
            sourceFingerprint: key.origin?.sourceFingerprint)
        #expect(throws: EthereumWalletError.self) {
            try EthereumAccount(name: "x", chainID: 1, hdKey: bitcoin, count: 1)
        }
        var noChainCode = key
        noChainCode.chainCode = nil
        #expect(throws: EthereumWalletError.self) {
            try EthereumAccount(name: "x", chainID: 1, hdKey: noChainCode, count: 1)
        }
        var privateKey = key
        privateKey.isPrivate = true
        #expect(throws: EthereumWalletError.self) {
            try EthereumAccount(name: "x", chainID: 1, hdKey: privateKey, count: 1)
        }
        // Control.
        _ = try EthereumAccount(name: "x", chainID: 1, hdKey: key, count: 1)
    }

    static func transferLog(
        token: EthereumAddress, from: EthereumAddress, to: EthereumAddress, amount: UInt64, block: UInt64
    )
        -> EthLog
    {
        EthLog(
            address: token,
            topics: [
                EthereumSync.transferTopic, [UInt8](repeating: 0, count: 12) + from.bytes,
                [UInt8](repeating: 0, count: 12) + to.bytes,
            ],
            data: UInt256(amount).bigEndianBytes, blockNumber: block, transactionHash: Keccak256.hash([UInt8(block)]),
            logIndex: 0)
    }

    @Test("sync stores balances, nonces, token balances and transfers; a wrong chain id changes nothing")
    func sync() async throws {
        let (key, _, _) = try Self.hdKey()
        let store = try Self.store()
        let account = try store.addEthereumAccount(
            try EthereumAccount(name: "main", chainID: Self.chain, hdKey: key, count: 2))
        let token = try EthereumAddress(string: "0x" + String(repeating: "ab", count: 20))
        try store.addEthereumToken(
            EthereumToken(contract: token, symbol: "ATT", name: "Test", decimals: 6), accountID: account.id!)
        let me = account.entries[0].address
        let stranger = try EthereumAddress(string: "0x" + String(repeating: "12", count: 20))
        let node = FixedEthereumNode(chain: Self.chain)
        node.balances[me] = Wei(UInt256(1_000_000_000_000_000_001))
        node.nonces[me] = 3
        node.tokenBalances[me] = UInt256(5_000_000)
        node.logList = [
            Self.transferLog(token: token, from: stranger, to: me, amount: 5_000_000, block: 10),
            Self.transferLog(token: token, from: stranger, to: stranger, amount: 9, block: 11),
        ]

        let liar = FixedEthereumNode(chain: 1)
        liar.balances[me] = Wei(UInt256(7))
        await #expect {
            _ = try await EthereumSync.sync(account: account, store: store, node: liar)
        } throws: { error in
            guard case EthereumWalletError.chain(.wrongChain(let why)) = error else { return false }
            return why.contains("--chain-id 1") && why.contains("account 'main' is on chain id 131277322940537")
        }
        #expect(try store.ethereumAccount(named: "main").syncedBlock == nil)

        let report = try await EthereumSync.sync(account: account, store: store, node: node)
        #expect(report.block == 100 && report.newTransfers == 1)
        let synced = try store.ethereumAccount(named: "main")
        #expect(synced.entries[0].balance.amount == UInt256(1_000_000_000_000_000_001))
        #expect(synced.entries[0].nonce == 3)
        #expect(synced.syncedBlock == 100)
        let tokens = try store.ethereumTokens(accountID: account.id!)
        #expect(tokens[0].total == UInt256(5_000_000))
        #expect(try store.ethereumTransfers(accountID: account.id!).map(\.amount) == [UInt256(5_000_000)])

        // A node breaking midway leaves the database as it was.
        node.balances[me] = Wei(UInt256(1))
        node.tip = 200
        node.failure = .timeout(operation: "eth_getLogs", seconds: 1)
        await #expect(throws: EthereumWalletError.self) {
            _ = try await EthereumSync.sync(account: synced, store: store, node: node)
        }
        #expect(try store.ethereumAccount(named: "main") == synced)
    }

    @Test("send builds the request the signer reads; broadcast takes only the matching signature by the sender")
    func sendAndBroadcast() async throws {
        let (key, _, master) = try Self.hdKey()
        let store = try Self.store()
        let account = try store.addEthereumAccount(
            try EthereumAccount(name: "main", chainID: Self.chain, hdKey: key, count: 1))
        let entry = account.entries[0]
        let to = try EthereumAddress(string: "0x" + String(repeating: "34", count: 20))
        let fees = try EthereumSpend.fees(
            history: EthFeeHistory(
                oldestBlock: 1, baseFeePerGas: [UInt256(1_000_000_000), UInt256(875_000_000)], gasUsedRatio: [0.1],
                reward: [[UInt256(2_000_000_000)]]), fallbackPriority: nil, priority: nil, maxFee: nil)
        #expect(fees.maxPriorityFeePerGas == UInt256(2_000_000_000))
        #expect(fees.maxFeePerGas == UInt256(3_750_000_000))
        let balance = Wei(UInt256(1_000_000_000_000_000_000))
        // Too little money: refused.
        #expect(throws: EthereumWalletError.self) {
            _ = try EthereumSpend.build(
                account: account, entry: entry, to: to, payment: .ether(balance), fees: fees, gasLimit: 21000, nonce: 0,
                balance: balance, tokenBalance: nil)
        }
        let built = try EthereumSpend.build(
            account: account, entry: entry, to: to, payment: .ether(Wei(UInt256(100_000_000_000_000_000))), fees: fees,
            gasLimit: 21000, nonce: 4, balance: balance, tokenBalance: nil)
        try store.addEthereumTransaction(built.record, accountID: account.id!)
        let request = try UREthSignRequest(serialized: built.request.serialized())
        #expect(request.chainID == Self.chain && request.address == entry.address.bytes)
        #expect(request.derivationPath.sourceFingerprint?.rawValue == master.fingerprint.value)

        // The signer's key signs the signing hash.
        let signingKey = try master.derive(DerivationPath(string: "m/44'/60'/0'/0/0")).privateKey
        let signature = try signingKey.signRecoverable(digest: built.transaction.signingHash)
        let good = UREthSignature(
            requestID: request.requestID, signature: signature.compact + [signature.recoveryID])
        let records = try store.ethereumTransactions(accountID: account.id!)

        // Attack: another key signs the same request.
        let otherKey = try master.derive(DerivationPath(string: "m/44'/60'/0'/0/1")).privateKey
        let forged = try otherKey.signRecoverable(digest: built.transaction.signingHash)
        #expect {
            _ = try EthereumBroadcast.assemble(
                UREthSignature(requestID: request.requestID, signature: forged.compact + [forged.recoveryID]),
                records: records)
        } throws: { error in
            if case EthereumWalletError.refused(let why) = error {
                return why.contains("not by the sender")
            } else {
                return false
            }
        }
        // Attack: the signature answers another request id.
        #expect(throws: EthereumWalletError.self) {
            _ = try EthereumBroadcast.assemble(
                UREthSignature(requestID: EthereumSpend.randomRequestID(), signature: good.signature), records: records)
        }
        // Control: the right one.
        let signed = try EthereumBroadcast.assemble(good, records: records)
        #expect(signed.raw.first == 0x02)
        try store.markBroadcast(
            requestID: signed.record.requestID, accountID: account.id!, hash: EthHex.data(signed.hash),
            signed: signed.raw)
        // Attack: the same signature a second time.
        #expect(throws: EthereumWalletError.self) {
            _ = try EthereumBroadcast.assemble(good, records: try store.ethereumTransactions(accountID: account.id!))
        }
        #expect(throws: EthereumWalletError.self) {
            try store.markBroadcast(
                requestID: signed.record.requestID, accountID: account.id!, hash: EthHex.data(signed.hash),
                signed: signed.raw)
        }

        // A reverted receipt: failed, with its gas spent.
        let node = FixedEthereumNode(chain: Self.chain)
        node.receipts[signed.hash] = EthReceipt(
            transactionHash: signed.hash, blockNumber: 7, succeeded: false, gasUsed: 21000,
            effectiveGasPrice: UInt256(2_875_000_000), logs: [])
        _ = try await EthereumSync.sync(account: account, store: store, node: node)
        let settled = try store.ethereumTransactions(accountID: account.id!)[0]
        #expect(settled.status == .failed)
        #expect(settled.feePaid?.amount == UInt256(21000 * 2_875_000_000))
    }

    @Test("token amounts are exact base units; too many decimals are refused")
    func amounts() throws {
        #expect(try EthereumSpend.baseUnits("1.5", decimals: 6) == UInt256(1_500_000))
        #expect(try EthereumSpend.baseUnits(".000001", decimals: 6) == UInt256(1))
        #expect(throws: EthereumWalletError.self) { try EthereumSpend.baseUnits("0.0000001", decimals: 6) }
        #expect(throws: EthereumWalletError.self) { try EthereumSpend.baseUnits("1e6", decimals: 6) }
        #expect(throws: EthereumWalletError.self) { try EthereumSpend.baseUnits("-1", decimals: 6) }
        #expect(EthereumSpend.decimalString(UInt256(1_500_000), decimals: 6) == "1.500000")
    }

    @Test("backup and restore carry Ethereum accounts, tokens and requests")
    func backup() throws {
        let (key, _, _) = try Self.hdKey()
        let store = try Self.store()
        let account = try store.addEthereumAccount(
            try EthereumAccount(name: "main", chainID: Self.chain, hdKey: key, count: 3))
        try store.addEthereumAccount(
            EthereumAccount(
                name: "cold", chainID: 1,
                address: try EthereumAddress(string: "0x" + String(repeating: "56", count: 20))))
        let token = try EthereumAddress(string: "0x" + String(repeating: "ab", count: 20))
        try store.addEthereumToken(
            EthereumToken(contract: token, symbol: "ATT", name: "Test", decimals: 6), accountID: account.id!)
        let built = try EthereumSpend.build(
            account: account, entry: account.entries[1], to: token, payment: .ether(Wei(UInt256(5))),
            fees: .init(maxFeePerGas: UInt256(10), maxPriorityFeePerGas: UInt256(1)), gasLimit: 21000, nonce: 0,
            balance: Wei(UInt256(1_000_000)), tokenBalance: nil)
        try store.addEthereumTransaction(built.record, accountID: account.id!)
        let backup = try store.makeBackup()
        let data = try JSONEncoder().encode(backup)
        let restored = try Self.store()
        try restored.restore(try JSONDecoder().decode(Backup.self, from: data), force: false)
        let accounts = try restored.ethereumAccounts()
        #expect(accounts.map(\.name) == ["cold", "main"])
        let main = try restored.ethereumAccount(named: "main")
        #expect(main.entries.map(\.address) == account.entries.map(\.address))
        #expect(try restored.ethereumTokens(accountID: main.id!).map(\.symbol) == ["ATT"])
        #expect(try restored.ethereumTransactions(accountID: main.id!).map(\.unsigned) == [built.record.unsigned])

        // Attack: a backup whose addresses are not the key's is refused, and the store is left empty.
        var tampered = backup
        tampered.ethereum?[1].addresses[0] = "0x" + String(repeating: "99", count: 20)
        let target = try Self.store()
        #expect(throws: BackupError.self) { try target.restore(tampered, force: false) }
        #expect(try target.ethereumAccounts().isEmpty)
    }

    @Test("bump keeps the nonce and raises both fees by at least 12.5%; a mined transaction is not bumped")
    func bump() throws {
        let (key, _, _) = try Self.hdKey()
        let account = try EthereumAccount(name: "main", chainID: Self.chain, hdKey: key, count: 1)
        let built = try EthereumSpend.build(
            account: account, entry: account.entries[0], to: account.entries[0].address,
            payment: .ether(Wei(UInt256(5))),
            fees: .init(maxFeePerGas: UInt256(3_000_000_000), maxPriorityFeePerGas: UInt256(1_000_000_000)),
            gasLimit: 21000, nonce: 9, balance: Wei(UInt256(1_000_000_000_000_000)), tokenBalance: nil)
        var pending = built.record
        pending.status = .pending
        let low = EthereumSpend.Fees(maxFeePerGas: UInt256(1), maxPriorityFeePerGas: UInt256(1))
        let bumped = try EthereumSpend.bump(
            pending, account: account, fees: low, balance: Wei(UInt256(1_000_000_000_000_000_000)))
        #expect(bumped.transaction.nonce == 9)
        #expect(bumped.record.maxFeePerGas == UInt256(3_375_000_000))
        #expect(bumped.record.maxPriorityFeePerGas == UInt256(1_125_000_000))
        #expect(bumped.record.replaces == pending.requestID)
        #expect(bumped.transaction.to == built.transaction.to && bumped.transaction.value == built.transaction.value)
        var mined = pending
        mined.status = .mined
        #expect(throws: EthereumWalletError.self) {
            _ = try EthereumSpend.bump(
                mined, account: account, fees: low, balance: Wei(UInt256(1_000_000_000_000_000_000)))
        }
    }
}
