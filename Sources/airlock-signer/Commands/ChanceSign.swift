import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Chance
import Foundation
import Signer
import SignerReports

extension AirlockSigner.Sign {
    /// `sign` of a Chance wallet `multisig:` text (docs/architecture.md section 3): the same review and rules as a
    /// PSBT (`ChanceSigningSession`), the answer the same text with this vault's signatures under its key position.
    func runChance(_ raw: String, format: FrameFormat) throws {
        let text = try ChanceSignFlow.read(raw)
        let previous = try previousTransactions()
        let unlocked = try vault.unlock()
        let flow = try ChanceSignFlow(
            text, previous: previous, vault: unlocked, master: try vault.masterKey(of: unlocked), policy: try policy)
        let decision = flow.chance.decision
        try AirlockSigner.Sign.present(decision, json: json, yes: yes, stdinInput: input == ["-"])
        let signed = try flow.sign(allowFlags: allowFlagsUsed + vault.airGapOverrides, finalize: finalize)
        let finalTransaction = signed.transaction
        let answer = signed.text.description
        let paths = try output.write(
            .chanceMultisig(answer), fileBytes: Array((answer + "\n").utf8), json: json,
            preferredFormat: format == .bbqr ? .bbqr : nil, show: show)
        if let finalTransaction, let txOut {
            try AtomicFileWriter.write(Array((finalTransaction.serialized().hexString + "\n").utf8), to: txOut)
        }
        if json {
            var object = SignOutput(decision, signed: signed.signedInputs)
            object.multisigText = answer
            object.written = paths
            object.complete = signed.text.isComplete
            object.transaction = finalTransaction?.serialized().hexString
            try JSONOutput.print(object, files: paths + (finalTransaction == nil ? [] : txOut.map { [$0] } ?? []))
        } else {
            Diagnostics.print(
                "signed \(signed.signedInputs.count) of \(text.transaction.inputs.count) input(s) under key position(s) "
                    + signed.positions.map(String.init).joined(separator: ", "))
            Diagnostics.print(
                signed.text.isComplete
                    ? "complete: \(signed.text.threshold) of \(signed.text.keys.count) key positions have signed"
                        + (finalize ? "" : " (--finalize gives the final transaction)")
                    : "not complete yet: \(signed.text.signatures.count) of the \(signed.text.threshold) signatures")
            if !output.isRequested, !show { print(answer) }
            if let finalTransaction, txOut == nil { print(finalTransaction.serialized().hexString) }
            OutputOptions.printWritten(paths + (finalTransaction == nil ? [] : txOut.map { [$0] } ?? []))
        }
    }

    /// The previous transactions of --prev-tx (several in one file allowed).
    private func previousTransactions() throws -> [Transaction] {
        var previous: [Transaction] = []
        for path in prevTx {
            let bytes: [UInt8]
            do { bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
                throw CLIError(.io, "--prev-tx \(path): cannot read: \(error.localizedDescription)")
            }
            do { previous += try ChanceMultisig.transactions(fileBytes: bytes) } catch {
                throw CLIError(.invalidInput, "--prev-tx \(path): \(error.description)")
            }
        }
        return previous
    }
}
