import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import QRImage
import SeedBackup
import Signer

extension AirlockSigner {
    /// `airlock-signer backup show`: the mnemonic, after the password and an explicit yes.
    struct BackupShow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the mnemonic words (needs --show-secret or a confirmation on the terminal).",
            discussion: """
                Examples:
                  airlock-signer backup show
                  airlock-signer backup show --show-secret --password-file pw.txt --json
                  airlock-signer backup show --seedqr compact --terminal
                  airlock-signer backup show --seedqr standard --qr seed.png --card card.png

                --seedqr shows the words as a SeedQR (SeedSigner's Standard: four digits a word, or Compact: the \
                entropy bytes) on the terminal (--terminal, the default) or as a PNG (--qr, mode 0600); --card \
                writes the code on a numbered grid, heavier every five squares, for copying by hand onto a \
                SeedSigner transcription template. The files hold the seed: keep them off any networked machine.
                """)

        @OptionGroup var options: VaultOptions
        @Flag(help: "Print the secret words without asking.") var showSecret = false
        @Option(help: "Show the words as a SeedQR: standard or compact.") var seedqr: SeedQR.Format?
        @Option(help: "With --seedqr: write the SeedQR PNG to PATH (mode 0600).") var qr: String?
        @Option(help: "With --seedqr: write the transcription card PNG to PATH (mode 0600).") var card: String?
        @Flag(help: "With --seedqr: draw the code on the terminal (the default without --qr/--card).")
        var terminal = false

        func validate() throws {
            if seedqr == nil, qr != nil || card != nil || terminal {
                throw ValidationError("--qr, --card and --terminal need --seedqr standard|compact")
            }
            if seedqr != nil, options.json { throw ValidationError("--seedqr draws a code; it has no --json output") }
            for path in [qr, card].compactMap({ $0 }) where !path.lowercased().hasSuffix(".png") {
                throw ValidationError("\(path): SeedQR images are written as PNG (name ending in .png)")
            }
        }

        /// A SLIP-39 vault has no BIP39 words.
        static let noWords = CLIError(
            .usage,
            "this vault holds a SLIP-39 backup, not BIP39 words; write new shares with `backup slip39 --shares MofN`")

        func run() async throws {
            try await ErrorReporting.run {
                if !showSecret {
                    guard isatty(STDIN_FILENO) == 1 else {
                        throw CLIError(.refused, "refusing to print the mnemonic without --show-secret")
                    }
                    guard Prompt.confirm("Print the secret words on this screen?") else {
                        throw CLIError(.refused, "not shown")
                    }
                }
                let unlocked = try options.unlock()
                guard let mnemonic = unlocked.mnemonic else { throw Self.noWords }
                if let seedqr {
                    try showSeedQR(mnemonic, format: seedqr)
                    return
                }
                try BackupCheck.show(
                    mnemonic, json: options.json,
                    masterFingerprint: unlocked.header.masterFingerprint.hexString)
            }
        }
    }
}

extension SeedQR.Format: ExpressibleByArgument {}

extension AirlockSigner.BackupShow {
    /// The SeedQR of `mnemonic`: standard (digits, numeric mode) or compact (entropy, byte mode), smallest version.
    static func seedQRCode(_ mnemonic: Mnemonic, format: SeedQR.Format) throws -> QRCode {
        var payload = SeedQR.payload(for: mnemonic, format: format).unsafeCopyToArray()
        defer { SecretBytes.wipe(&payload) }
        do {
            switch format {
            case .standard: return try QRCode(text: String(decoding: payload, as: UTF8.self))
            case .compact: return try QRCode(bytes: payload)
            }
        } catch { throw CLIError(.invalidInput, "cannot encode the SeedQR: \(error)") }
    }

    func showSeedQR(_ mnemonic: Mnemonic, format: SeedQR.Format) throws {
        let code = try Self.seedQRCode(mnemonic, format: format)
        if let qr {
            try AtomicFileWriter.write(try code.pngData(moduleSize: 10), to: qr, mode: 0o600)
            Diagnostics.print("SeedQR (\(format.rawValue), \(code.size)×\(code.size)) written to \(qr).")
        }
        if let card {
            try AtomicFileWriter.write(try SeedQRCard(code: code).pngData(), to: card, mode: 0o600)
            Diagnostics.print("SeedQR transcription card (\(code.size)×\(code.size) squares) written to \(card).")
        }
        if terminal || (qr == nil && card == nil) {
            StandardOutput.write(Data(try code.terminalString().utf8))
        }
    }
}
