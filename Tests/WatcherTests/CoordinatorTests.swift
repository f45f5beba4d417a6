import Bitcoin
import ChainBackends
import Foundation
import Testing

@testable import Watcher

/// Coin freezing (BIP329 `spendable`), CPFP planning and wallet birthdays, on a store fed in-memory sync updates.
@Suite("Coordinator: freeze, CPFP, birthday")
struct CoordinatorTests {
    static let tip = BlockTip(height: 10, hash: String(repeating: "0", count: 64))
    static let elsewhere = Script([0x00, 0x14] + [UInt8](repeating: 0x42, count: 20))

    /// A wallet with two confirmed coins (60,000 and 30,000 sat) on receive 0 and 1.
    static func fundedWallet() throws -> (Store, WalletRecord, Transaction) {
        let store = try Store(directory: StoreTests.tempDir())
        let wallet = try StoreTests.makeWallet(store)
        let account = try Account(record: wallet)
        let addresses = try (0..<3).flatMap { index in
            [try account.derive(.external, index: index), try account.derive(.internal, index: index)]
        }
        let funding = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 7, count: 32)), vout: 1))],
            outputs: [
                TxOut(value: try Amount(sats: 60_000), scriptPubKey: addresses[0].script),
                TxOut(value: try Amount(sats: 30_000), scriptPubKey: addresses[2].script),
            ])
        try store.apply(
            walletID: try wallet.requireID(), addresses: addresses,
            update: SyncUpdate(
                tip: tip,
                histories: [
                    addresses[0].script: [HistoryEntry(txid: funding.txid, height: 5)],
                    addresses[2].script: [HistoryEntry(txid: funding.txid, height: 5)],
                ],
                transactions: [funding.txid: funding],
                anchors: [funding.txid: BlockAnchor(height: 5, blockHash: "ab", verified: true)]))
        try store.finishSync(walletID: try wallet.requireID(), tip: tip, seen: [funding.txid])
        return (store, wallet, funding)
    }

    @Test("freeze: stored as spendable false, skipped by send unless named, unfreeze keeps the label text")
    func freeze() throws {
        let (store, wallet, funding) = try Self.fundedWallet()
        let id = try wallet.requireID()
        let big = OutPoint(txid: funding.txid, vout: 0)
        let small = OutPoint(txid: funding.txid, vout: 1)
        try store.upsertLabels([Label(type: "output", ref: big.description, label: "cold")], walletID: id)
        try store.setFrozen([big], frozen: true, walletID: id)
        #expect(try store.utxos(walletID: id).filter(\.frozen).map(\.outpoint) == [big])
        #expect(
            try store.labels(walletID: id) == [
                Label(type: "output", ref: big.description, label: "cold", spendable: false)
            ])
        let recipient = Recipient(
            address: try Address(scriptPubKey: Self.elsewhere, network: .main), amount: try Amount(sats: 20_000))
        var random = SystemRandomNumberGenerator()
        let planner = try SpendPlanner(store: store, wallet: wallet)
        for _ in 0..<5 {
            let plan = try planner.plan(
                recipients: [recipient], feeRate: FeeRate(satsPerKVB: 2000), using: &random)
            #expect(plan.inputs.map(\.utxo.outpoint) == [small])
        }
        // More than the unfrozen coin holds: refused rather than touching the frozen one.
        let large = Recipient(address: recipient.address, amount: try Amount(sats: 50_000))
        #expect(throws: SpendError.self) {
            try planner.plan(recipients: [large], feeRate: FeeRate(satsPerKVB: 2000), using: &random)
        }
        let named = try planner.plan(
            recipients: [large], feeRate: FeeRate(satsPerKVB: 2000), only: [big], using: &random)
        #expect(named.inputs.map(\.utxo.outpoint) == [big])

        // All or nothing: an unknown outpoint in the list changes nothing.
        let unknown = OutPoint(txid: funding.txid, vout: 9)
        #expect(throws: StoreError.unknownOutput(unknown.description)) {
            try store.setFrozen([small, unknown], frozen: true, walletID: id)
        }
        #expect(try store.utxos(walletID: id).filter(\.frozen).map(\.outpoint) == [big])
        try store.setFrozen([big, small], frozen: false, walletID: id)
        #expect(try store.utxos(walletID: id).allSatisfy { !$0.frozen })
        // The labelled coin keeps its label as spendable; the other had only the freeze, which is gone.
        #expect(
            try store.labels(walletID: id) == [
                Label(type: "output", ref: big.description, label: "cold", spendable: true)
            ])
    }

    /// An unconfirmed spend of the 60,000 sat coin: 10,000 to someone else, 49,800 to change 0 (fee 200).
    static func parent(_ store: Store, _ wallet: WalletRecord, _ funding: Transaction) throws -> Transaction {
        let change = try Account(record: wallet).derive(.internal, index: 0)
        let parent = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: funding.txid, vout: 0), sequence: .replaceByFee)],
            outputs: [
                TxOut(value: try Amount(sats: 10_000), scriptPubKey: Self.elsewhere),
                TxOut(value: try Amount(sats: 49_800), scriptPubKey: change.script),
            ])
        try store.apply(
            walletID: try wallet.requireID(), addresses: [],
            update: SyncUpdate(
                tip: tip, histories: [change.script: [HistoryEntry(txid: parent.txid, height: nil)]],
                transactions: [parent.txid: parent]))
        return parent
    }

    @Test("CPFP: the child spends the parent's change and lifts the package to the rate")
    func cpfp() throws {
        let (store, wallet, funding) = try Self.fundedWallet()
        let parent = try Self.parent(store, wallet, funding)
        for rate in [2, 10, 57] as [UInt64] {
            let result = try ChildPaysForParent(store: store, wallet: wallet).plan(
                parent: parent.txid, feeRate: try FeeRate(satsPerVByte: rate))
            #expect(result.parent.fee.sats == 200 && result.parent.vsize == parent.vsize)
            #expect(result.plan.inputs.map(\.utxo.outpoint) == [OutPoint(txid: parent.txid, vout: 1)])
            #expect(result.childVSize == 11 + 68 + 9 + 22)
            let package = parent.vsize + result.childVSize
            let expected = (UInt64(package) * rate) - 200
            #expect(result.plan.fee.sats == expected)
            #expect(result.plan.outputs.map(\.value.sats) == [49_800 - expected])
            #expect(Double(200 + result.plan.fee.sats) / Double(package) >= Double(rate))
            #expect(result.packageRate >= Double(rate))
        }
        // A rate the parent already reaches, a confirmed or unknown parent: refused.
        #expect(throws: SpendError.self) {
            try ChildPaysForParent(store: store, wallet: wallet).plan(
                parent: parent.txid, feeRate: FeeRate(satsPerKVB: 1000))
        }
        #expect(throws: SpendError.inconsistent("\(funding.txid) is already confirmed")) {
            try ChildPaysForParent(store: store, wallet: wallet).plan(
                parent: funding.txid, feeRate: FeeRate(satsPerKVB: 5000))
        }
    }

    @Test("CPFP: a parent whose inputs the wallet does not know has no known fee")
    func cpfpUnknownFee() throws {
        let (store, wallet, _) = try Self.fundedWallet()
        let receive = try Account(record: wallet).derive(.external, index: 1)
        let incoming = Transaction(
            inputs: [TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 9, count: 32)), vout: 0))],
            outputs: [TxOut(value: try Amount(sats: 25_000), scriptPubKey: receive.script)])
        try store.apply(
            walletID: try wallet.requireID(), addresses: [],
            update: SyncUpdate(
                tip: Self.tip, histories: [receive.script: [HistoryEntry(txid: incoming.txid, height: nil)]],
                transactions: [incoming.txid: incoming]))
        #expect(throws: SpendError.self) {
            try ChildPaysForParent(store: store, wallet: wallet).plan(
                parent: incoming.txid, feeRate: FeeRate(satsPerKVB: 5000))
        }
    }

    @Test("birthday: a height or a UTC date, stored with the wallet; anything else is refused")
    func birthday() throws {
        #expect(WalletBirthday(string: "834000") == .height(834_000))
        #expect(WalletBirthday(string: "0") == .height(0))
        #expect(WalletBirthday(string: "2009-01-03") == .date(1_230_940_800))
        #expect(WalletBirthday(string: "2024-03-01") == .date(1_709_251_200))
        #expect(WalletBirthday(string: "2024-03-01")?.description == "2024-03-01")
        for bad in ["", "-1", "12.5", "99999999999", "2024-02-30", "2008-12-31", "2024-3-1", "yesterday", "2024-13-01"]
        {
            #expect(WalletBirthday(string: bad) == nil, "\(bad)")
        }
        let store = try Store(directory: StoreTests.tempDir())
        #expect(try store.birthday(walletName: "w") == nil)
        try store.setBirthday(.date(1_709_251_200), walletName: "w")
        #expect(try store.birthday(walletName: "w") == .date(1_709_251_200))
        try store.setBirthday(nil, walletName: "w")
        #expect(try store.birthday(walletName: "w") == nil)
    }
}
