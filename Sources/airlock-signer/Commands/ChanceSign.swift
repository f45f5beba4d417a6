import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Chance
import Foundation
import Signer

extension AirlockSigner.Sign {
    /// `sign` of a Chance wallet `multisig:` text (docs/architecture.md section 3): the same review and rules as a
    /// PSBT (`ChanceSigningSession`), the answer the same text with this vault's signatures under its key position.
    func runChance(_ raw: String, format: FrameFormat) throws {
        let text: ChanceMultisig
        do { text = try ChanceMultisig(string: raw) } catch { throw CLIError(.invalidInput, error.description) }
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
        let unlocked = try vault.unlock()
        let master = try vault.masterKey(of: unlocked)
        var policy = try self.policy
        policy.network = unlocked.network
        let chance: ChanceSigningDecision
        do {
            chance = try ChanceSigningSession(SigningSession(vault: unlocked, master: master, policy: policy))
                .review(text, previousTransactions: previous)
        } catch { throw CLIError(.invalidInput, error.description) }
        let decision = chance.decision
        try AirlockSigner.Sign.present(decision, json: json, yes: yes, stdinInput: input == ["-"])
        let signed: (text: ChanceMultisig, signedInputs: [Int], positions: [Int])
        do { signed = try chance.sign() } catch let error as SigningSessionError {
            throw CLIError(.refused, error.description)
        } catch let error as ChanceSigningError {
            throw CLIError(.invalidInput, error.description)
        }
        try unlocked.recordSignature(
            unsignedPSBT: chance.psbt.serialized(),
            summary: AuditSummary(review: decision.review).recording(
                allowFlags: allowFlagsUsed + vault.airGapOverrides, signedInputs: signed.signedInputs))
        var finalTransaction: Transaction?
        if finalize, signed.text.isComplete {
            do { finalTransaction = try signed.text.finalTransaction() } catch {
                throw CLIError(.invalidInput, error.description)
            }
        }
        let answer = signed.text.description
        let paths = try output.write(
            .chanceMultisig(answer), fileBytes: Array((answer + "\n").utf8), json: json,
            preferredFormat: format == .bbqr ? .bbqr : nil)
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
            if !output.isRequested { print(answer) }
            if let finalTransaction, txOut == nil { print(finalTransaction.serialized().hexString) }
            OutputOptions.printWritten(paths + (finalTransaction == nil ? [] : txOut.map { [$0] } ?? []))
        }
    }
}
