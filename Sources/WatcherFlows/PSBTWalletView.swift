import Bitcoin
import Descriptors
import Foundation
import Watcher

/// What the wallet knows of a PSBT (`inspect`): which inputs spend its coins and which outputs pay it back (with the
/// keychain and index), the BIP329 labels of the transaction, its inputs, outputs and addresses, and what the
/// transaction takes from or gives to the wallet.
public struct PSBTWalletView: Sendable {
    /// One input or output as the wallet sees it.
    public struct Entry: Sendable {
        public let index: Int
        public let outpoint: String
        public let address: String?
        public let amount: Amount?
        /// The wallet's address it spends from or pays to; nil when not the wallet's.
        public let own: AddressRecord?
        public let labels: [String]
    }

    public let inputs: [Entry]
    public let outputs: [Entry]
    /// The transaction's label.
    public let label: String?
    /// What the transaction gives the wallet (own outputs) against what it takes (own inputs); nil when an own
    /// input's amount is unknown.
    public let net: NetAmount?

    /// The view of `analysis` from `wallet`'s addresses and labels in `store`.
    ///
    /// - Throws: `StoreError`.
    public init(_ analysis: PSBTAnalysis, store: Store, wallet: WalletRecord) throws {
        let id = try wallet.requireID()
        let byScript = Dictionary(
            try store.addresses(walletID: id).map { ($0.script, $0) }, uniquingKeysWith: { a, _ in a })
        var labels: [String: [String]] = [:]
        for label in try store.labels(walletID: id) {
            guard let text = label.label, !text.isEmpty else { continue }
            labels["\(label.type) \(label.ref)", default: []].append(text)
        }
        func labelsOf(_ keys: [String]) -> [String] { keys.flatMap { labels[$0] ?? [] } }
        inputs = analysis.inputs.map { input in
            let outpoint = input.outpoint.description
            return Entry(
                index: input.index, outpoint: outpoint, address: input.address, amount: input.amount,
                own: input.scriptPubKey.flatMap { byScript[$0] },
                labels: labelsOf(
                    ["input \(outpoint)", "output \(outpoint)", "tx \(input.outpoint.txid.hexString)"]
                        + (input.address.map { ["addr \($0)"] } ?? [])))
        }
        outputs = analysis.outputs.map { output in
            let outpoint = "\(analysis.txid.hexString):\(output.index)"
            return Entry(
                index: output.index, outpoint: outpoint, address: output.address, amount: output.amount,
                own: byScript[output.scriptPubKey],
                labels: labelsOf(["output \(outpoint)"] + (output.address.map { ["addr \($0)"] } ?? [])))
        }
        label = labels["tx \(analysis.txid.hexString)"]?.first
        net = NetAmount(
            ownInputs: inputs.filter { $0.own != nil }.map(\.amount),
            ownOutputs: outputs.filter { $0.own != nil }.compactMap(\.amount))
    }
}

/// What a transaction gives a wallet (its own outputs) against what it takes (its own inputs).
public struct NetAmount: Sendable, Equatable {
    /// The sum of the wallet's outputs.
    public let received: Amount
    /// The sum of the wallet's inputs.
    public let spent: Amount

    /// The sums of `ownOutputs` and `ownInputs`; nil when an input's amount is unknown or a sum passes 21,000,000
    /// BTC (a crafted PSBT).
    public init?(ownInputs: [Amount?], ownOutputs: [Amount]) {
        let known = ownInputs.compactMap { $0 }
        guard known.count == ownInputs.count, let spent = try? Amount.sum(known),
            let received = try? Amount.sum(ownOutputs)
        else { return nil }
        self.received = received
        self.spent = spent
    }

    /// Received less spent, in sat (negative when the wallet pays).
    public var sats: Int64 { Int64(received.sats) - Int64(spent.sats) }

    /// `+0.001 BTC` or `-0.001 BTC` without the unit.
    public var btcString: String {
        (sats < 0 ? "-" : "+") + ((try? Amount(sats: sats.magnitude))?.btcString ?? "\(sats.magnitude) sat")
    }
}

extension PSBTWalletView {
    /// For an input of one of `policies` (the wallet's miniscript descriptors): who has signed and whether it can be
    /// finalized now (the finalizer's reason when not: signatures missing, or a timelock the transaction does not
    /// meet); nil for other inputs.
    public static func policyLine(_ psbt: PSBT, input: Int, policies: [Descriptor], wallet: String) -> String? {
        guard !policies.isEmpty, !psbt.inputs[input].isFinalized,
            psbt.miniscriptMatch(ofInput: input, descriptors: policies) != nil
        else { return nil }
        let signed = Set(psbt.partialSignatures(ofInput: input).keys)
        let signers = psbt.inputs[input].bip32Derivations.filter { signed.contains($0.publicKey.compressed) }
            .map(\.origin.fingerprint.hexString)
        var line = "policy '\(DisplayText.clean(wallet))': signed by "
        line += signers.isEmpty ? "nobody yet" : signers.joined(separator: ", ")
        var probe = psbt
        do {
            try probe.finalizeMiniscriptInput(input, descriptors: policies)
            line += "; can be finalized now"
        } catch PSBTError.cannotFinalize(_, let reason) {
            line += "; cannot be finalized yet: \(reason)"
        } catch {
            line += "; cannot be finalized yet: \(error)"
        }
        return line
    }
}
