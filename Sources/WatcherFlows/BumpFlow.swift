import Bitcoin
import Foundation
import Watcher

/// What `bump` made: a replacement (RBF) of an unconfirmed wallet transaction, or a child paying for it (CPFP); the
/// unsigned PSBT is kept in the data directory to combine with the signer's answer.
public struct BumpReport: Sendable {
    /// Which kind of PSBT, with what only that kind has.
    public enum Kind: Sendable {
        /// A replacement of `replaces`, whose fee it raises.
        case replacement(replaces: Txid, original: FeeBumper.Original, summary: TransactionSummary)
        /// A child of an unconfirmed parent, bringing the package to the rate.
        case child(ChildPaysForParent.Result)
    }

    public let kind: Kind
    public let plan: SpendPlan
    public let psbt: PSBT
    public let network: Network

    /// The stderr lines.
    public var lines: [String] {
        let tx = plan.transaction
        switch kind {
        case .replacement(let replaces, let original, let summary):
            return [
                "replacement \(tx.txid.hexString) for \(replaces.hexString) (fee was \(original.fee.btcString) BTC, "
                    + "\(original.feeRate))"
            ] + summary.lines
        case .child(let result):
            return [
                "child \(tx.txid.hexString) pays for \(result.parent.txid.hexString) (fee "
                    + "\(result.parent.fee.btcString) BTC, \(result.parent.vsize) vB, \(result.parent.feeRate))",
                "child fee \(plan.fee.btcString) BTC (~\(result.childVSize) vB); package \(packageRate(result)) sat/vB",
            ]
        }
    }

    private func packageRate(_ result: ChildPaysForParent.Result) -> Double {
        (result.packageRate * 100).rounded() / 100
    }

    /// `bump --json` or `bump --cpfp --json`, with the files the PSBT was written to.
    public func json(written: [String]) -> any Encodable & Sendable {
        let tx = plan.transaction
        switch kind {
        case .replacement(let replaces, let original, let summary):
            return BumpJSON(
                summary: summary.json, txid: tx.txid.hexString, replaces: replaces.hexString,
                originalFee: original.fee.sats, psbt: psbt.base64String, written: written,
                inputs: plan.inputs.map { $0.utxo.outpoint.description })
        case .child(let result):
            return ChildJSON(
                txid: tx.txid.hexString, parent: result.parent.txid.hexString, parentFee: result.parent.fee.sats,
                parentVsize: result.parent.vsize, fee: plan.fee.sats, vsize: result.childVSize,
                packageFeeRate: packageRate(result), inputs: plan.inputs.map { $0.utxo.outpoint.description },
                outputs: tx.outputs.map {
                    ChildJSON.Output(
                        address: (try? Address(scriptPubKey: $0.scriptPubKey, network: network))?.description,
                        amount: $0.value.sats)
                },
                psbt: psbt.base64String, written: written)
        }
    }
}

/// `bump`: a replacement of an unconfirmed wallet transaction at a higher fee rate, or (`cpfp`) a child that pays for
/// it; the PSBT is kept in the data directory.
public struct BumpFlow: Sendable {
    let store: Store
    let wallet: WalletRecord

    public init(store: Store, wallet: WalletRecord) {
        self.store = store
        self.wallet = wallet
    }

    /// Replaces `txid` (or, with `childPays`, pays for it with a child) at `feeRate`.
    ///
    /// - Throws: `SpendError` (the refusals of `FeeBumper` and `ChildPaysForParent`), `StoreError`, `PSBTError`.
    public func run(_ txid: Txid, feeRate: FeeRate, childPays: Bool) throws -> BumpReport {
        let account = try Account(record: wallet)
        let kind: BumpReport.Kind
        let plan: SpendPlan
        if childPays {
            let result = try ChildPaysForParent(store: store, wallet: wallet).plan(parent: txid, feeRate: feeRate)
            (kind, plan) = (.child(result), result.plan)
        } else {
            let (replacement, original) = try FeeBumper(store: store, wallet: wallet).plan(
                replacing: txid, feeRate: feeRate)
            let vsize = try SpendPlanner(store: store, wallet: wallet).estimatedVSize(of: replacement)
            let change: Set<Script> =
                replacement.change.map { [replacement.outputs[$0.position].scriptPubKey] } ?? []
            let summary = TransactionSummary(
                replacement.transaction, fee: replacement.fee, vsize: vsize, network: wallet.network, own: change)
            (kind, plan) = (.replacement(replaces: txid, original: original, summary: summary), replacement)
        }
        let psbt = try plan.psbt(account: account)
        try PSBTArchive(store: store).save(psbt)
        return BumpReport(kind: kind, plan: plan, psbt: psbt, network: wallet.network)
    }
}
