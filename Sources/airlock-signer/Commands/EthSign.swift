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
        let parsed = try EthereumSignFlow.request(
            signData: request.signData, dataType: dataType(request.dataType), chainID: request.chainID,
            path: request.derivationPath.components.map(step), address: request.address, origin: request.origin)
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
        let answer = UREthSignature(requestID: request.requestID, signature: signature.bytes, origin: "airlock-signer")
        let urText = try URRegistryItem.ethSignature(answer).ur().string
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

    static func step(_ component: URKeypath.Component) -> EthereumSignFlow.PathStep {
        if case .index(let index, let hardened) = component { return .index(index, hardened: hardened) }
        return .notAnIndex
    }

    static func dataType(_ type: UREthSignRequest.DataType) -> EthereumSigningSession.Request.DataType {
        switch type {
        case .legacyTransaction: .legacyTransaction
        case .typedData: .typedData
        case .personalMessage: .personalMessage
        case .typedTransaction: .typedTransaction
        }
    }
}
