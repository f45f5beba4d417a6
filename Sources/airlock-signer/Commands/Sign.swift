import AirgapTransport
import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import Signer

extension AirlockSigner {
    /// `airlock-signer sign IN`: review a PSBT (DESIGN.md section 5), confirm, sign what belongs to this seed.
    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Review a PSBT, ask for confirmation, sign what belongs to this vault, write the signed PSBT.",
            discussion: """
                The review is printed first: each external destination and amount, change verified against this \
                vault, the fee and fee rate, and warnings. Refused unless explicitly allowed: a sighash other than \
                ALL/DEFAULT, a fee rate above --max-fee-rate or a fee above the amount sent, a PSBT for another \
                network, segwit v0 inputs without their previous transaction. Refusals exit 4.

                The signed PSBT keeps only the signatures by default (smaller QR codes; the coordinator combines \
                them); --full keeps every field. Without --out/--qr/--terminal it is printed as base64.

                Examples:
                  airlock-signer sign unsigned-*.png --qr signed.png
                  airlock-signer sign tx.psbt --out signed.psbt --password-file pw.txt --yes
                  airlock-signer sign frames/ --json --yes --qr signed.png --qr-sheet
                """)

        @OptionGroup var vault: VaultOptions
        @Argument(help: "The PSBT: a file (binary, base64 or hex), '-' for stdin, or QR PNG images / a directory.")
        var input: [String]
        @OptionGroup var output: OutputOptions
        @Flag(help: "Sign without asking for confirmation (the review is still printed).") var yes = false
        @Option(help: "Refuse fee rates above this many sat/vB.") var maxFeeRate: Double = 1000
        @Flag(help: "Sign inputs that ask for SIGHASH_NONE/SINGLE/ANYONECANPAY (dangerous).")
        var allowNonDefaultSighash = false
        @Flag(
            name: .customLong("allow-missing-prev-tx"),
            help: "Sign segwit v0 inputs without their previous transaction.")
        var allowMissingPreviousTransaction = false
        @Flag(help: "Sign multisig inputs of wallets not registered with `multisig register` (change not verifiable).")
        var allowUnregistered = false
        @Flag(help: "Write the full PSBT (every field) instead of only the signatures.") var full = false
        @Flag(help: "Also finalize; when complete, write the network transaction (hex) to --tx-out or stdout.")
        var finalize = false
        @Option(help: "With --finalize: write the final transaction (hex) to FILE.") var txOut: String?

        func validate() throws {
            guard maxFeeRate > 0 else { throw ValidationError("--max-fee-rate must be positive") }
            if txOut != nil, !finalize { throw ValidationError("--tx-out needs --finalize") }
        }

        var json: Bool { vault.json }

        func run() async throws {
            try await ErrorReporting.run {
                let read = try InputReader.read(input, expecting: [.psbt, .bytes, .text])
                let original = try parsePSBT(read.payload)
                let unlocked = try vault.unlock()
                let master = try vault.masterKey(of: unlocked)
                let network = unlocked.network
                // Origins that name an account key (a watch-only wallet restored from a bare xpub) are matched to
                // this seed's accounts for the review and signing; the PSBT written back keeps the sender's own.
                let (psbt, resolvedOrigins) = AccountOriginResolver(master: master, network: network).resolving(
                    original)
                var policy = SigningPolicy(network: network)
                policy.maxFeeRateSatsPerVByte = maxFeeRate
                policy.allowNonDefaultSighash = allowNonDefaultSighash
                policy.allowMissingPreviousTransaction = allowMissingPreviousTransaction
                let registered = try unlocked.header.multisigWallets.map { try $0.descriptor }
                let accounts = try Self.singleSigAccounts(in: psbt, master: master, network: network) + registered
                let review = try TransactionReview(psbt, accounts: accounts, policy: policy)
                let provider = SeedKeyProvider(master: master)
                let unregistered = try unregisteredInputs(psbt, review: review, provider: provider)
                var refusals = review.refusals
                if !unregistered.isEmpty {
                    if allowUnregistered {
                        refusals.removeAll { $0 == .nothingToSign }
                    } else {
                        refusals.append(.nothingToSign)
                    }
                }
                let unique = refusals.reduce(into: [SigningRefusal]()) { if !$0.contains($1) { $0.append($1) } }
                if !json { Diagnostics.print(review.text) }
                if resolvedOrigins > 0, !json {
                    Diagnostics.print(
                        "\nnote: \(resolvedOrigins) key origin(s) named an account key instead of this seed's master key "
                            + "(a watch-only wallet without key origins); matched to this seed's accounts by re-deriving each key"
                    )
                }
                if !unregistered.isEmpty {
                    Diagnostics.print(
                        "\n!!! inputs \(unregistered.map(String.init).joined(separator: ", ")) spend from a multisig "
                            + "wallet NOT registered in this vault: its change cannot be verified"
                            + (allowUnregistered
                                ? " (signing anyway: --allow-unregistered)"
                                : "; register it or pass --allow-unregistered"))
                }
                guard unique.isEmpty || (unique == [.nothingToSign] && allowUnregistered && !unregistered.isEmpty)
                else {
                    if json { try JSONOutput.printObject(verdict(review, refusals: unique, signed: [])) }
                    throw CLIError(.refused, "refused: " + unique.map(\.description).joined(separator: "; "))
                }
                if !yes {
                    guard Prompt.confirm("\nSign this transaction?") else {
                        throw CLIError(.refused, "not signed: declined at the confirmation")
                    }
                }
                let report = try PSBTSigner(options: policy.signingOptions).sign(psbt, with: provider)
                guard !report.signedInputs.isEmpty else {
                    throw CLIError(.refused, "nothing signed: no input of this PSBT belongs to this vault")
                }
                try unlocked.recordSignature(
                    unsignedPSBT: original.serialized(),
                    summary: summary(review).recording(
                        allowFlags: allowFlagsUsed + vault.airGapOverrides, signedInputs: report.signedInputs))
                var signed = resolvedOrigins > 0 ? try original.combined(with: [report.psbt]) : report.psbt
                var finalTransaction: Transaction?
                if finalize, signed.finalize() { finalTransaction = try signed.extractTransaction() }
                let written = full || finalTransaction != nil ? signed : signed.trimmedForCoordinator()
                let bytes = written.serialized()
                let preferred: QRFormatOption? =
                    switch read.format {
                    case .bbqr: .bbqr
                    case .ur: .ur
                    default: nil
                    }
                let paths = try output.write(.psbt(bytes), fileBytes: bytes, json: json, preferredFormat: preferred)
                if let finalTransaction, let txOut {
                    try AtomicFileWriter.write(Array((finalTransaction.serialized().hexString + "\n").utf8), to: txOut)
                }
                if json {
                    var object = verdict(review, refusals: [], signed: report.signedInputs)
                    object["psbt"] = written.base64String
                    object["written"] = paths
                    if let finalTransaction { object["transaction"] = finalTransaction.serialized().hexString }
                    try JSONOutput.printObject(object)
                } else {
                    Diagnostics.print(
                        "signed \(report.signedInputs.count) of \(psbt.inputs.count) input(s): "
                            + report.signedInputs.map { "#\($0)" }.joined(separator: ", "))
                    if !output.isRequested { print(written.base64String) }
                    if let finalTransaction, txOut == nil { print(finalTransaction.serialized().hexString) }
                    for path in paths { Diagnostics.print("wrote \(path)") }
                }
            }
        }

        /// The `--allow-*` flags given, for the journal.
        private var allowFlagsUsed: [String] {
            [
                (allowNonDefaultSighash, "--allow-non-default-sighash"),
                (allowMissingPreviousTransaction, "--allow-missing-prev-tx"),
                (allowUnregistered, "--allow-unregistered"),
            ].filter(\.0).map(\.1)
        }

        private func parsePSBT(_ payload: Payload) throws -> PSBT {
            let bytes: [UInt8]
            switch payload {
            case .psbt(let b), .bytes(let b): bytes = b
            case .text(let t): bytes = Array(t.utf8)
            default: throw CLIError(.invalidInput, "expected a PSBT, got a \(payload.kind.rawValue)")
            }
            do { return try PSBT(anyEncoding: bytes) } catch { throw CLIError(.invalidInput, "invalid PSBT: \(error)") }
        }

        /// The single-signature accounts of this seed that the PSBT's derivations name (BIP44/49/84/86 paths).
        static func singleSigAccounts(in psbt: PSBT, master: ExtendedPrivateKey, network: Network) throws
            -> [Descriptor]
        {
            var origins: [KeyOrigin] = []
            for input in psbt.inputs {
                origins += input.bip32Derivations.map(\.origin) + input.tapBIP32Derivations.map(\.origin)
            }
            for output in psbt.outputs {
                origins += output.bip32Derivations.map(\.origin) + output.tapBIP32Derivations.map(\.origin)
            }
            var seen: Set<String> = []
            var accounts: [Descriptor] = []
            for origin in origins where origin.fingerprint == master.fingerprint {
                let components = origin.path.components
                guard components.count == 5, components[0].isHardened, components[2].isHardened,
                    let script = AccountScript.allCases.first(where: {
                        $0 != .wshMulti && $0.purpose == components[0].index
                    })
                else { continue }
                let key = "\(script.rawValue)/\(components[2].index)"
                guard seen.insert(key).inserted else { continue }
                let account = try AccountKey(
                    master: master, script: script, account: components[2].index, network: network)
                if let descriptor = account.descriptor { accounts.append(descriptor) }
            }
            return accounts
        }

        /// Inputs this seed can sign that no account or registered wallet claims (an unregistered multisig).
        private func unregisteredInputs(_ psbt: PSBT, review: TransactionReview, provider: SeedKeyProvider) throws
            -> [Int]
        {
            var result: [Int] = []
            for (index, input) in psbt.inputs.enumerated() {
                guard case .foreign = review.analysis.inputs[index].ownership,
                    input.witnessScript != nil || input.redeemScript != nil
                else { continue }
                let ours = input.bip32Derivations.contains { derivation in
                    ((try? provider.privateKey(for: .bip32(publicKey: derivation.publicKey, origin: derivation.origin)))
                        ?? nil) != nil
                }
                if ours { result.append(index) }
            }
            return result
        }

        private func summary(_ review: TransactionReview) -> AuditSummary {
            AuditSummary(
                txid: review.analysis.txid.hexString,
                destinations: review.analysis.outputs.filter(\.isExternal).map {
                    AuditSummary.Destination(
                        address: $0.address ?? "script:" + $0.scriptPubKey.hexString, amount: $0.amount)
                },
                change: review.analysis.changeAmount, fee: review.analysis.fee)
        }

        private func verdict(_ review: TransactionReview, refusals: [SigningRefusal], signed: [Int]) -> [String: Any] {
            let analysis = review.analysis
            return [
                "verdict": refusals.isEmpty ? "signed" : "refused",
                "txid": analysis.txid.hexString,
                "fee": analysis.fee.map { Int($0.sats) as Any } ?? NSNull(),
                "fee_rate": analysis.feeRate.map { ($0 * 100).rounded() / 100 as Any } ?? NSNull(),
                "sent": Int(analysis.amountSent.sats),
                "change": Int(analysis.changeAmount.sats),
                "outputs": analysis.outputs.map { output -> [String: Any] in
                    [
                        "index": output.index, "address": output.address ?? NSNull(), "amount": Int(output.amount.sats),
                        "change": output.isChange, "external": output.isExternal,
                    ]
                },
                "warnings": analysis.warnings.map(\.description),
                "refusals": refusals.map(\.description),
                "signed_inputs": signed,
            ]
        }
    }
}
