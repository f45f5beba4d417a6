import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Codecs
import Ethereum
import Signer

/// Signs an EIP-4527 `ur:eth-sign-request` for `airlock-signer sign` (docs/architecture.md section 10).
///
/// The review (always on stderr first, also under `--json`), the refusals or the confirmation (`ReviewGate`, as for
/// PSBTs), and the `ur:eth-signature` answer in the form the request came in. `Sign.run` hands the request here.
enum EthereumSignCommand {
    /// The `--json` output.
    struct Output: Encodable {
        struct Line: Encodable {
            let label: String
            /// The value as the request holds it (hidden characters kept; the terminal review shows them escaped).
            let value: String
            let hiddenCharacters: Bool

            enum CodingKeys: String, CodingKey {
                case label, value
                case hiddenCharacters = "hidden_characters"
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(label, forKey: .label)
                try container.encode(value, forKey: .value)
                if hiddenCharacters { try container.encode(true, forKey: .hiddenCharacters) }
            }
        }
        let verdict: String
        let type: String
        let chainID: UInt64?
        let from: String
        let review: [Line]
        let warnings: [String]
        let refusals: [String]
        let hiddenCharacters: Bool
        let signature: String?
        let ur: String?
        let written: [String]

        enum CodingKeys: String, CodingKey {
            case verdict, type, from, review, warnings, refusals, signature, ur, written
            case chainID = "chain_id"
            case hiddenCharacters = "hidden_characters"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(verdict, forKey: .verdict)
            try container.encode(type, forKey: .type)
            try container.encode(chainID, forKey: .chainID)  // null: valid on every chain
            try container.encode(from, forKey: .from)
            try container.encode(review, forKey: .review)
            try container.encode(warnings, forKey: .warnings)
            try container.encode(refusals, forKey: .refusals)
            try container.encode(hiddenCharacters, forKey: .hiddenCharacters)
            try container.encodeIfPresent(signature, forKey: .signature)
            try container.encodeIfPresent(ur, forKey: .ur)
            try container.encode(written, forKey: .written)
        }
    }

    static func run(
        _ request: UREthSignRequest, format: FrameFormat, vault: VaultOptions, output: OutputOptions, yes: Bool,
        maxFeeEth: String, allowBlind: Bool, stdinInput: Bool = false
    ) throws {
        let maxFee: Wei
        do { maxFee = try Wei(etherString: maxFeeEth) } catch {
            throw CLIError(.usage, "--max-fee-eth is not an amount of ETH: \(maxFeeEth)")
        }
        var children: [ChildNumber] = []
        for component in request.derivationPath.components {
            guard case .index(let index, let hardened) = component,
                let child = try? ChildNumber(index: index, hardened: hardened)
            else { throw CLIError(.invalidInput, "the request's derivation path is not a plain path") }
            children.append(child)
        }
        let path = try DerivationPath(children)
        let address: EthereumAddress?
        do { address = try request.address.map { try EthereumAddress(bytes: $0) } } catch {
            throw CLIError(.invalidInput, "the request's address is not 20 bytes")
        }
        let dataType: EthereumSigningSession.Request.DataType =
            switch request.dataType {
            case .legacyTransaction: .legacyTransaction
            case .typedData: .typedData
            case .personalMessage: .personalMessage
            case .typedTransaction: .typedTransaction
            }
        let unlocked = try vault.unlock()
        let master = try vault.masterKey(of: unlocked)
        let imported = address.flatMap { unlocked.importedEthereumKey(address: $0) }
        let session = EthereumSigningSession(
            master: master, maxFee: maxFee,
            importedKeys: unlocked.importedKeys.filter { $0.chain == .ethereum }.map(\.key), allowBlind: allowBlind,
            tokens: unlocked.tokens)
        let sessionRequest = EthereumSigningSession.Request(
            signData: request.signData, dataType: dataType, chainID: request.chainID, path: path, address: address,
            origin: request.origin)
        if let refusal = session.keyRefusal(
            sessionRequest, sourceFingerprint: request.derivationPath.sourceFingerprint?.rawValue)
        {
            throw CLIError(.refused, "refused: \(refusal)")
        }
        let review: EthereumReview
        do {
            review = try session.review(sessionRequest)
        } catch {
            throw CLIError(.invalidInput, "invalid eth-sign-request: \(error)")
        }
        let type =
            switch review.content {
            case .transaction: "eth-transaction"
            case .typedData: "eth-typed-data"
            case .personalMessage: "eth-personal-message"
            }
        // A key imported into the vault (`key import`) is named in the review, so the user sees which key signs.
        var lines = review.lines
        if let imported {
            let label = imported.label
            let at = lines.firstIndex { $0.label == "From" }.map { $0 + 1 } ?? 0
            lines.insert(.init("Key", "imported" + (label.isEmpty ? "" : " (\(label))")), at: at)
        }
        var warnings = review.warnings
        if lines.contains(where: \.hiddenCharacters), !warnings.contains(DisplayText.hiddenCharactersWarning) {
            warnings.append(DisplayText.hiddenCharactersWarning)
        }
        let hidden = lines.contains(where: \.hiddenCharacters)
        func report(_ verdict: String, signature: String?, ur: String?, written: [String]) -> Output {
            Output(
                verdict: verdict, type: type, chainID: review.chainID, from: review.from.checksummed,
                review: lines.map { .init(label: $0.label, value: $0.data, hiddenCharacters: $0.hiddenCharacters) },
                warnings: warnings, refusals: review.refusals.map(\.description), hiddenCharacters: hidden,
                signature: signature, ur: ur, written: written)
        }
        let text = (lines.map { "\($0.label): \($0.value)" } + warnings.map { "!!! \($0)" }).joined(separator: "\n")
        try ReviewGate.run(
            review: text, refusals: review.refusals.map(\.description), json: vault.json, yes: yes,
            question: "Sign this?", answer: stdinInput ? .controllingTerminal : .standardInput,
            refusedDocument: { try JSONOutput.print(report("refused", signature: nil, ur: nil, written: [])) })
        let signature: EthereumSignature
        do { signature = try session.sign(review, path: path, address: address) } catch {
            throw CLIError(.refused, "not signed: \(error)")
        }
        try unlocked.recordEthereumSignature(
            signData: request.signData, review: review, signature: signature,
            allowFlags: (allowBlind ? ["--allow-blind"] : []) + vault.airGapOverrides)
        let answer = UREthSignature(requestID: request.requestID, signature: signature.bytes, origin: "airlock-signer")
        let urText = try URRegistryItem.ethSignature(answer).ur().string
        let preferred: QRFormatOption? = format == .ur ? .ur : nil
        let written = try output.write(
            .ethSignature(answer), fileBytes: Array((urText + "\n").utf8), json: vault.json, preferredFormat: preferred)
        if vault.json {
            try JSONOutput.print(
                report("signed", signature: Hex.encode(signature.bytes), ur: urText, written: written),
                files: written)
        } else {
            if !output.isRequested { print(urText) }
            OutputOptions.printWritten(written)
        }
    }
}
