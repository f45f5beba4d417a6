import Bitcoin
import ChainCore
import Foundation
import TestSupport
import Testing

@testable import Watcher

/// `SpendPlanner` and `FeeBumper` (RBF) on a wallet synced from a `FixedChainSource`: the fee arithmetic and the
/// replacement rules, without a socket.
@Suite("Spend planning and RBF fee bumps with an in-memory chain source")
struct SpendTests {
    /// A wallet holding coins of `sats` at external indexes 0, 1, … (confirmed at 90) and `extra` transactions.
    static func fundedWallet(_ sats: [UInt64], extra: [Transaction] = [], heights: [Txid: Int] = [:]) async throws
        -> (Store, WalletRecord, Account, [Transaction])
    {
        let (store, wallet, account) = try WalletSyncTests.setUp()
        var funding: [Transaction] = []
        var confirmed = heights
        for (i, value) in sats.enumerated() {
            let tx = try TestTransactions.funding(
                try WalletSyncTests.script(account, i), sats: value, seed: UInt8(20 + i))
            funding.append(tx)
            confirmed[tx.txid] = 90
        }
        let source = FixedChainSource(tipHeight: 100, transactions: funding + extra, heights: confirmed)
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        return (store, wallet, account, funding)
    }

    /// The BIP173 example address.
    static var payee: Address {
        get throws { try Address(string: "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4") }
    }

    @Test("a plan pays the recipient, balances inputs against outputs and fee, and pays at least the rate")
    func planBalances() async throws {
        let (store, wallet, _, _) = try await Self.fundedWallet([60_000, 80_000])
        var generator = SplitMix64(seed: 1)
        let rate = try FeeRate(satsPerVByte: 5)
        let plan = try SpendPlanner(store: store, wallet: wallet).plan(
            recipients: [Recipient(address: try Self.payee, amount: try Amount(sats: 100_000))], feeRate: rate,
            using: &generator)
        let inputs = plan.inputs.reduce(UInt64(0)) { $0 + $1.utxo.value.sats }
        let outputs = plan.outputs.reduce(UInt64(0)) { $0 + $1.value.sats }
        #expect(inputs == outputs + plan.fee.sats)
        #expect(
            plan.outputs.contains(TxOut(value: try Amount(sats: 100_000), scriptPubKey: try Self.payee.scriptPubKey)))
        // Two P2WPKH inputs (68 vB each), two outputs (31 vB each) and 11 vB of overhead: 209 vB at 5 sat/vB.
        #expect(plan.fee.sats >= 209 * 5)
        let change = try #require(plan.change)
        #expect(plan.outputs[change.position].value.sats == inputs - 100_000 - plan.fee.sats)
        #expect(plan.inputs.allSatisfy { $0.sequence == .replaceByFee })
        #expect(plan.lockTime.rawValue <= 100)
    }

    @Test("a plan larger than the wallet is refused with the amounts")
    func planInsufficientFunds() async throws {
        let (store, wallet, _, _) = try await Self.fundedWallet([60_000])
        var generator = SplitMix64(seed: 2)
        #expect {
            try SpendPlanner(store: store, wallet: wallet).plan(
                recipients: [Recipient(address: try Self.payee, amount: try Amount(sats: 70_000))],
                feeRate: try FeeRate(satsPerVByte: 1), using: &generator)
        } throws: { error in
            guard case SpendError.selection(.insufficientFunds(let needed, let available)) = error else {
                return false
            }
            // Effective values: the coin less the 68 vB of its input at 1 sat/vB; the target plus the fee.
            return available == 60_000 - 68 && needed > 70_000
        }
    }

    @Test("coin control spends exactly the coin named; an unknown coin is refused")
    func coinControl() async throws {
        let (store, wallet, _, funding) = try await Self.fundedWallet([60_000, 80_000])
        var generator = SplitMix64(seed: 3)
        let chosen = OutPoint(txid: funding[1].txid, vout: 0)
        let plan = try SpendPlanner(store: store, wallet: wallet).plan(
            recipients: [Recipient(address: try Self.payee, amount: try Amount(sats: 10_000))],
            feeRate: try FeeRate(satsPerVByte: 2), only: [chosen], using: &generator)
        #expect(plan.inputs.map(\.utxo.outpoint) == [chosen])
        let unknown = OutPoint(txid: funding[0].txid, vout: 5)
        #expect(throws: SpendError.unknownUTXO(unknown.description)) {
            try SpendPlanner(store: store, wallet: wallet).plan(
                recipients: [Recipient(address: try Self.payee, amount: try Amount(sats: 10_000))],
                feeRate: try FeeRate(satsPerVByte: 2), only: [unknown], using: &generator)
        }
    }

    @Test(
        "above the candidate limit, selection chooses among the first coins in spend order, and among all when those do not pay; at or below it, exactly as with no limit"
    )
    func candidateLimit() async throws {
        let values: [UInt64] = (0..<12).map { 10_000 + 1_000 * UInt64($0) }
        let (store, wallet, _, _) = try await Self.fundedWallet(values)
        let order = try store.coins(walletID: try wallet.requireID()).map(\.outpoint)
        #expect(order.count == 12)
        let rate = try FeeRate(satsPerVByte: 2)
        func plan(_ sats: UInt64, limit: Int, seed: UInt64) throws -> SpendPlan {
            var planner = try SpendPlanner(store: store, wallet: wallet)
            planner.candidateLimit = limit
            var generator = SplitMix64(seed: seed)
            return try planner.plan(
                recipients: [Recipient(address: try Self.payee, amount: try Amount(sats: sats))], feeRate: rate,
                using: &generator)
        }
        // The control: a wallet with no more coins than the limit (12 of 12, or far fewer than the default) selects
        // exactly as with no limit: the same inputs, outputs, fee and lock time for the same random draws.
        for seed in UInt64(1)...12 {
            let unlimited = try plan(25_000, limit: Int.max, seed: seed).transaction.serialized()
            #expect(
                try plan(25_000, limit: SpendPlanner.defaultCandidateLimit, seed: seed).transaction.serialized()
                    == unlimited)
            #expect(try plan(25_000, limit: 12, seed: seed).transaction.serialized() == unlimited)
        }
        // Above the limit: only the first five coins in spend order are candidates.
        var used: Set<OutPoint> = []
        for seed in UInt64(1)...12 {
            let inputs = try plan(25_000, limit: 5, seed: seed).inputs.map(\.utxo.outpoint)
            #expect(Set(inputs).isSubset(of: Set(order.prefix(5))))
            used.formUnion(inputs)
        }
        #expect(!used.isEmpty)
        // The first five cannot pay 120,000 sat (95,000 at most): every coin is read, and the plan pays.
        let large = try plan(120_000, limit: 5, seed: 3)
        #expect(large.inputs.reduce(UInt64(0)) { $0 + $1.utxo.value.sats } >= 120_000 + large.fee.sats)
        #expect(!Set(large.inputs.map(\.utxo.outpoint)).isSubset(of: Set(order.prefix(5))))
        // More than the whole wallet: refused with what every coin is worth (less each input's 68 vB at 2 sat/vB).
        #expect {
            try plan(300_000, limit: 5, seed: 4)
        } throws: { error in
            guard case SpendError.selection(.insufficientFunds(_, let available)) = error else { return false }
            return available == values.reduce(0, +) - 12 * 136
        }
    }

    /// A wallet that sent 50,000 sat to the payee from its 100,000 sat coin, with 49,000 sat change (fee 1,000).
    static func walletWithPendingSend(rbf: Bool) async throws -> (Store, WalletRecord, Transaction, UInt64) {
        let (store, wallet, account) = try WalletSyncTests.setUp()
        let funding = try TestTransactions.funding(try WalletSyncTests.script(account, 0), sats: 100_000, seed: 40)
        let changeScript = try WalletSyncTests.script(account, 0, keychain: .internal)
        let send = try TestTransactions.spend(
            [OutPoint(txid: funding.txid, vout: 0)],
            outputs: [(try Self.payee.scriptPubKey, 50_000), (changeScript, 49_000)], rbf: rbf)
        let source = FixedChainSource(tipHeight: 100, transactions: [funding, send], heights: [funding.txid: 90])
        _ = try await WalletSync(store: store, wallet: wallet, source: source).run()
        return (store, wallet, send, 1_000)
    }

    @Test("RBF: the replacement keeps the inputs and the payment, takes the fee from the change, pays the new rate")
    func rbfBump() async throws {
        let (store, wallet, send, oldFee) = try await Self.walletWithPendingSend(rbf: true)
        let rate = try FeeRate(satsPerVByte: 20)
        let (plan, original) = try FeeBumper(store: store, wallet: wallet).plan(replacing: send.txid, feeRate: rate)
        #expect(original.fee.sats == oldFee)
        #expect(plan.inputs.map(\.utxo.outpoint) == send.inputs.map(\.previousOutput))
        #expect(plan.outputs.first == send.outputs.first)  // the payment, untouched
        // 11 + 68 + 2 × 31 = 141 vB at 20 sat/vB; BIP125: also at least the old fee plus 1 sat/vB of its own size.
        #expect(plan.fee.sats == 141 * 20)
        #expect(plan.fee.sats >= oldFee + 141)
        #expect(plan.outputs[1].value.sats == 100_000 - 50_000 - plan.fee.sats)
        #expect(plan.outputs[1].scriptPubKey == send.outputs[1].scriptPubKey)
        #expect(plan.transaction.inputs.allSatisfy { $0.sequence == .replaceByFee })
    }

    @Test("RBF refuses a rate not above the original's, and a transaction sent without RBF")
    func rbfRefusals() async throws {
        let (store, wallet, send, _) = try await Self.walletWithPendingSend(rbf: true)
        // 1,000 sat over 141 vB is about 7.09 sat/vB: 7 is not above it.
        #expect(throws: SpendError.self) {
            try FeeBumper(store: store, wallet: wallet).plan(
                replacing: send.txid, feeRate: try FeeRate(satsPerVByte: 7))
        }
        let (store2, wallet2, final, _) = try await Self.walletWithPendingSend(rbf: false)
        #expect {
            try FeeBumper(store: store2, wallet: wallet2).plan(
                replacing: final.txid, feeRate: try FeeRate(satsPerVByte: 20))
        } throws: { error in
            guard case SpendError.inconsistent(let why) = error else { return false }
            return why.contains("does not signal replace-by-fee")
        }
    }
}
