import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Codecs
import Ethereum
import EthereumSigner
import Signer

/// Signs an EIP-4527 `ur:eth-sign-request` for `airlock-signer sign` (docs/architecture.md section 10).
///
/// The decision is `EthereumSignFlow`'s: this shows its review (always on stderr first, also under `--json`), asks
/// (`ReviewGate`, as for PSBTs), and writes the `ur:eth-signature` answer in the form the request came in.
enum EthereumSignCommand {
    static func run(
        _ request: UREthSignRequest, format: FrameFormat, vault: VaultOptions, output: OutputOptions, yes: Bool,
        maxFeeEth: String, allowBlind: Bool, stdinInput: Bool = false, show: Bool = false
    ) throws {
        let maxFee: Wei
        do { maxFee = try Wei(etherString: maxFeeEth) } catch {
            throw CLIError(.usage, "--max-fee-eth is not an amount of ETH: \(maxFeeEth)")
        }
        let parsed = try EthereumSignFlow.request(request)
        let unlocked = try vault.unlock()
        let flow = try EthereumSignFlow(
            parsed, sourceFingerprint: request.derivationPath.sourceFingerprint?.rawValue, vault: unlocked,
            master: try vault.masterKey(of: unlocked),
            options: .init(maxFee: maxFee, allowBlind: allowBlind, overrides: vault.airGapOverrides))
        try ReviewGate.run(
            review: flow.review.text, refusals: flow.review.refusals.map(\.description), json: vault.json, yes: yes,
            question: "Sign this?", answer: stdinInput ? .controllingTerminal : .standardInput,
            refusedDocument: { try JSONOutput.print(flow.refusedReport) })
        let signature = try flow.sign()
        let (answer, urText) = try EthereumSignFlow.answer(signature, to: request)
        let written = try output.write(
            .ethSignature(answer), fileBytes: Array((urText + "\n").utf8), json: vault.json,
            preferredFormat: format == .ur ? .ur : nil, show: show)
        if vault.json {
            try JSONOutput.print(flow.signedReport(signature, ur: urText, written: written), files: written)
        } else {
            if !output.isRequested, !show { print(urText) }
            OutputOptions.printWritten(written)
        }
    }
}
