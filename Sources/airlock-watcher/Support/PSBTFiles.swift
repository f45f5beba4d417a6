import AirgapTransport
import Bitcoin
import CLISupport
import Foundation
import Watcher

/// Reading and writing PSBTs for `send`, `combine`, `finalize`, `broadcast` and `bump`.
enum PSBTFiles {
    /// One PSBT from `arguments` (a file, `-`, or PNG images of its QR codes), through CLISupport.InputReader.
    static func read(_ arguments: [String]) throws -> PSBT {
        let input = try InputReader.read(arguments, expecting: [.psbt])
        guard case .psbt(let bytes) = input.payload else {
            throw CLIError(
                .invalidInput, "\(arguments.joined(separator: " ")) holds a \(input.payload.kind.rawValue), not a PSBT")
        }
        do { return try PSBT(serialized: bytes) } catch {
            throw CLIError(.invalidInput, "\(arguments.joined(separator: " ")): not a valid PSBT: \(error)")
        }
    }

    /// The QR framing of a request for the signer (`send`, `bump`) when `--qr-format` is not given: BBQr with zlib,
    /// which Airlock's signer reads and answers in, in far fewer frames than UR (docs/benchmarks.md, frames);
    /// `--qr-format ur` gives the `ur:crypto-psbt` frames Sparrow, Keystone and SeedSigner read.
    static let requestFormat = QRFormatOption.bbqr

    /// Writes `psbt` to the requested outputs, or as base64 on stdout when none was given (and not `--json`).
    ///
    /// - Parameters:
    ///   - psbt: the PSBT.
    ///   - options: the command's output options.
    ///   - json: whether stdout holds the `--json` document.
    ///   - preferredFormat: the QR framing when `--qr-format` is not given (nil: UR).
    /// - Returns: the paths written.
    /// - Throws: `CLIError` from `OutputOptions.write`.
    @discardableResult
    static func write(
        _ psbt: PSBT, options: OutputOptions, json: Bool, preferredFormat: QRFormatOption? = nil
    ) throws -> [String] {
        let bytes = psbt.serialized()
        if !options.isRequested {
            if !json { print(psbt.base64String) }
            return []
        }
        return try options.write(.psbt(bytes), fileBytes: bytes, json: json, preferredFormat: preferredFormat)
    }

    /// The value each input spends, when the PSBT carries it.
    static func inputValues(_ psbt: PSBT) -> [UInt64?] {
        psbt.inputs.indices.map { index in
            guard let outpoint = try? psbt.outpoint(of: index) else { return nil }
            return psbt.inputs[index].spentOutput(vout: outpoint.vout)?.value.sats
        }
    }

    /// The fee, when every input's value is known.
    static func fee(_ psbt: PSBT, transaction: Transaction) -> UInt64? {
        let values = inputValues(psbt)
        guard values.allSatisfy({ $0 != nil }) else { return nil }
        let input = values.reduce(UInt64(0)) { $0 + ($1 ?? 0) }
        let output = transaction.outputs.reduce(UInt64(0)) { $0 + $1.value.sats }
        return input >= output ? input - output : nil
    }

    /// A summary of a transaction's outputs (marking the wallet's own) and fee, for stderr and `--json`.
    static func summary(
        _ transaction: Transaction, fee: UInt64?, vsize: Int, network: Network, own: Set<Script>
    ) -> (lines: [String], json: TransactionSummaryJSON) {
        var lines: [String] = []
        var outputs: [TransactionSummaryJSON.Output] = []
        for output in transaction.outputs {
            let address =
                (try? Address(scriptPubKey: output.scriptPubKey, network: network))?.description
                ?? output.scriptPubKey.hexString
            let mine = own.contains(output.scriptPubKey)
            lines.append(
                (mine ? "  change  " : "  pay to  ") + "\(address)  \(btc(output.value.sats)) BTC"
                    + (mine ? "  (back to this wallet)" : ""))
            outputs.append(.init(address: address, amount: output.value.sats, change: mine))
        }
        var feeRate: Double?
        if let fee {
            let rate = Double(fee) / Double(max(vsize, 1))
            lines.append("fee: \(btc(fee)) BTC (\(String(format: "%.2f", rate)) sat/vB for \(vsize) vB)")
            feeRate = (rate * 100).rounded() / 100
        } else {
            lines.append("fee: unknown (the PSBT does not carry every input's value)")
        }
        return (lines, TransactionSummaryJSON(outputs: outputs, vsize: vsize, fee: fee, feeRate: feeRate))
    }

    /// The scripts of the wallet's derived addresses.
    static func ownScripts(_ context: WatcherContext, wallet: WalletRecord) throws -> Set<Script> {
        Set(try context.store.addresses(walletID: wallet.requireID()).map(\.script))
    }
}
