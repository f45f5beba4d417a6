import AirgapTransport
import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Descriptors
import Foundation
import SignToContract
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer sign IN`: review a PSBT (docs/architecture.md section 5), confirm, sign what belongs to this seed.
    struct Sign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Review a PSBT, ask for confirmation, sign what belongs to this vault, write the signed PSBT.",
            discussion: """
                The review is printed first: each external destination and amount, change verified against this \
                vault, the fee and fee rate, and warnings. Refused unless explicitly allowed: a sighash other than \
                ALL/DEFAULT, a fee rate above --max-fee-rate or a fee above the amount sent, a PSBT for another \
                network, segwit v0 inputs without their previous transaction. Refusals exit 4.

                Change is an output of the wallet being spent only: the same account and script type as the \
                inputs (or the same registered multisig), on its receive or change branch, at most 10,000 indexes \
                past the highest index the inputs use. Any other output of this seed (another account, another \
                script type, a far index) is listed and counted as an external payment. Only the inputs the review \
                approves are signed: an input whose script is not what its claimed derivation gives is refused, and \
                inputs of scripts no registered wallet describes need --allow-unregistered. The fee rate is checked \
                over the smallest size the transaction can have, and the fee against --max-fee (default 0.05 BTC).

                The review is always shown before the question (on stderr; with --json too). The signed PSBT is \
                written whole while other cosigners still have to sign it (the next signer reviews and signs that \
                file); once this signature completes it, only the transaction and the signatures (smaller QR codes; \
                the coordinator combines them). --full always writes the whole PSBT, --trim always the trimmed one. \
                Without --out/--qr/--terminal it is printed as base64.

                IN may also be a Chance wallet multisig: text (legacy P2SH multisig): its redeem script must be \
                derived by a registered sh(multi)/sh(sortedmulti) wallet, --prev-tx gives the previous transactions \
                (legacy inputs carry no amounts; without them the fee is unknown and signing is refused), and the \
                answer is the same text with this vault's signatures under its key position.

                Examples:
                  airlock-signer sign unsigned-*.png --qr signed.png
                  airlock-signer sign tx.psbt --out signed.psbt --password-file pw.txt --yes
                  airlock-signer sign frames/ --json --yes --qr signed.png --qr-sheet
                  airlock-signer sign tx.psbt --max-fee 0.2btc --max-fee-rate 300 --out signed.psbt
                  airlock-signer sign chance.txt --prev-tx funding.hex --out chance-signed.txt --finalize
                  airlock-signer sign --camera --show
                  airlock-signer sign --camera /dev/video2 --timeout 120 --out signed.psbt --show

                With --camera [DEVICE] the request is read live from a camera (default /dev/video0; a video file \
                stands in for one): progress is shown on stderr and the reading stops as soon as every part is in, \
                then the review runs as always. --show then displays the answer full-screen as an animated QR code \
                (--fps frames a second, sized to the terminal, with its frame counter) until a key is pressed.
                """)

        @OptionGroup var vault: VaultOptions
        @Argument(
            help:
                "The PSBT: a file (binary, base64 or hex), '-' for stdin, or QR PNG images / a directory; or a multisig: text (also as the argument itself); with --camera the camera device or a video file."
        )
        var input: [String] = []
        @OptionGroup var camera: CameraOptions
        @OptionGroup var output: OutputOptions
        @Flag(
            help:
                "Show the answer full-screen on the terminal as an animated QR code, with its frame counter, until a key is pressed."
        )
        var show = false
        @Flag(help: "Sign without asking for confirmation (the review is still printed).") var yes = false
        @Option(help: "Refuse fee rates above this many sat/vB (over the smallest size the transaction can have).")
        var maxFeeRate: Double = 1000
        @Option(help: "Refuse fees above this amount: 0.05btc, 5000000sat or a number of BTC (default 0.05 BTC).")
        var maxFee: String?
        @Flag(help: "Sign inputs that ask for SIGHASH_NONE/SINGLE/ANYONECANPAY (dangerous).")
        var allowNonDefaultSighash = false
        @Flag(
            name: .customLong("allow-missing-prev-tx"),
            help: "Sign segwit v0 inputs without their previous transaction.")
        var allowMissingPreviousTransaction = false
        @Flag(
            help:
                "Sign inputs of scripts no registered wallet describes (unregistered multisig, script paths, foreign scripts)."
        )
        var allowUnregistered = false
        @Flag(help: "Write the whole PSBT (every field), even when this signature completes it.") var full = false
        @Flag(help: "Write only the transaction and the signatures, even when other cosigners still have to sign.")
        var trim = false
        @Flag(help: "Also finalize; when complete, write the network transaction (hex) to --tx-out or stdout.")
        var finalize = false
        @Option(help: "With --finalize: write the final transaction (hex) to FILE.") var txOut: String?
        @Option(
            name: .customLong("prev-tx"),
            help: ArgumentHelp(
                "A multisig: text: raw previous transactions (hex or binary, several in one file allowed) that give the legacy inputs' amounts; repeatable.",
                valueName: "FILE"))
        var prevTx: [String] = []
        @Option(help: "An eth-sign-request: refuse a worst-case fee above this many ETH.") var maxFeeEth = "0.05"
        @Flag(
            help:
                "An eth-sign-request: sign what cannot be shown (a message that is not readable text or is exactly 32 bytes, calldata the signer cannot decode)."
        )
        var allowBlind = false

        func validate() throws {
            guard maxFeeRate > 0 else { throw ValidationError("--max-fee-rate must be positive") }
            if txOut != nil, !finalize { throw ValidationError("--tx-out needs --finalize") }
            if full, trim { throw ValidationError("--full and --trim exclude each other") }
            if let maxFee { _ = try Self.amount(maxFee) }
            if input.isEmpty, !camera.camera {
                throw ValidationError("give the PSBT (a file, '-' or images), or --camera")
            }
            if show, json { throw ValidationError("--show draws on the terminal; it cannot go with --json") }
            if show, let problem = FullScreenQR.terminalProblem() { throw ValidationError(problem) }
        }

        static func amount(_ text: String) throws -> Amount {
            do { return try AmountArgument.bitcoin(text, option: "--max-fee") } catch {
                throw ValidationError(error.message)
            }
        }

        var json: Bool { vault.json }

        var policy: SigningPolicy {
            get throws {
                var policy = SigningPolicy(network: .main)
                policy.maxFeeRateSatsPerVByte = maxFeeRate
                if let maxFee { policy.maxFee = try Self.amount(maxFee) }
                policy.allowNonDefaultSighash = allowNonDefaultSighash
                policy.allowMissingPreviousTransaction = allowMissingPreviousTransaction
                policy.allowUnregistered = allowUnregistered
                return policy
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                // A multisig: text may also be given on the command line itself (when no file has that name).
                if input.count == 1, input[0].hasPrefix("multisig:"), !camera.camera,
                    !FileManager.default.fileExists(atPath: input[0])
                {
                    return try runChance(input[0], format: .plain)
                }
                let read = try camera.read(input, expecting: [.psbt, .bytes, .text, .ethSignRequest, .chanceMultisig])
                if case .chanceMultisig(let text) = read.payload { return try runChance(text, format: read.format) }
                if case .ethSignRequest(let request) = read.payload {
                    return try EthereumSignCommand.run(
                        request, format: read.format, vault: vault, output: output, yes: yes, maxFeeEth: maxFeeEth,
                        allowBlind: allowBlind, stdinInput: input == ["-"], show: show)
                }
                let original = try parsePSBT(read.payload)
                let unlocked = try vault.unlock()
                if let note = try PSBTSignFlow.history(of: original, in: unlocked) { Diagnostics.print(note) }
                let flow = try PSBTSignFlow(
                    original, vault: unlocked, master: try vault.masterKey(of: unlocked), policy: try policy)
                AntiExfilPSBT.reviewNotes(original).forEach(Diagnostics.print)
                try Self.present(flow.decision, json: json, yes: yes, stdinInput: input == ["-"])
                let result = try flow.sign(
                    allowFlags: allowFlagsUsed + vault.airGapOverrides, finalize: finalize, full: full, trim: trim)
                try write(result, decision: flow.decision, format: read.format)
            }
        }

        /// Writes the answer (and the final transaction to --tx-out), then prints the summary or the JSON.
        private func write(_ result: PSBTSignFlow.Result, decision: SigningDecision, format: FrameFormat) throws {
            let bytes = result.written.serialized()
            let preferred: QRFormatOption? =
                switch format {
                case .bbqr: .bbqr
                case .ur: .ur
                default: nil
                }
            let paths = try output.write(
                .psbt(bytes), fileBytes: bytes, json: json, preferredFormat: preferred, show: show)
            let transactionHex = result.transaction?.serialized().hexString
            if let transactionHex, let txOut {
                try AtomicFileWriter.write(Array((transactionHex + "\n").utf8), to: txOut)
            }
            let files = paths + (transactionHex == nil ? [] : txOut.map { [$0] } ?? [])
            let signed = result.signed
            // Silent-payment shares added, nothing signed (BIP375): said on stderr, also under --json.
            if let summary = decision.sharesAddedSummary {
                Diagnostics.print(summary)
                if !json {
                    if !output.isRequested, !show { print(result.written.base64String) }
                    return OutputOptions.printWritten(files)
                }
            }
            if json {
                var object = SignOutput(decision, signed: signed.signedInputs)
                object.psbt = result.written.base64String
                object.written = paths
                object.complete = signed.isComplete
                object.multisig = SignOutput.multisig(decision, psbt: signed.psbt)
                object.transaction = transactionHex
                if AntiExfilPSBT.isRequested(decision.psbt) {
                    object.antiExfil = AntiExfilPSBT.isCommitRound(decision.psbt) ? "commitments" : "signed"
                }
                return try JSONOutput.print(object, files: files)
            }
            Diagnostics.print(
                (AntiExfilPSBT.isCommitRound(decision.psbt)
                    ? "anti-exfil round 1: committed to the nonces of \(signed.signedInputs.count) of "
                        + "\(decision.psbt.inputs.count) input(s), no signature yet: "
                    : "signed \(signed.signedInputs.count) of \(decision.psbt.inputs.count) input(s): ")
                    + signed.signedInputs.map { "#\($0)" }.joined(separator: ", "))
            Diagnostics.print(
                AntiExfilPSBT.isCommitRound(decision.psbt)
                    ? "next: airlock-watcher finalize on this answer reveals the watcher's entropy; then sign what it writes"
                    : signed.isComplete
                        ? "complete: this signature completes the transaction"
                        : "not complete yet: other cosigners still have to sign")
            if !output.isRequested, !show { print(result.written.base64String) }
            if let transactionHex, txOut == nil { print(transactionHex) }
            OutputOptions.printWritten(files)
        }

        /// The `--allow-*` flags given, for the journal.
        var allowFlagsUsed: [String] {
            [
                (allowNonDefaultSighash, "--allow-non-default-sighash"),
                (allowMissingPreviousTransaction, "--allow-missing-prev-tx"),
                (allowUnregistered, "--allow-unregistered"),
            ].filter(\.0).map(\.1)
        }

        /// Shows the review (always first, on stderr, also under --json: nothing is approved unseen), then refuses
        /// (exit 4; under --json the verdict document is the one answer on stdout) or asks unless `yes`.
        static func present(_ decision: SigningDecision, json: Bool, yes: Bool, stdinInput: Bool = false) throws {
            let reasons = decision.refusals.isEmpty ? ["no input approved"] : decision.refusals.map(\.description)
            try ReviewGate.run(
                review: decision.review.text, refusals: decision.isApproved ? [] : reasons, json: json, yes: yes,
                question: decision.question, answer: stdinInput ? .controllingTerminal : .standardInput,
                refusedDocument: { try JSONOutput.print(SignOutput(decision, signed: nil)) })
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

    }
}
