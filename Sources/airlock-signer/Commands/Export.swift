import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Descriptors
import Foundation
import Signer

extension AirlockSigner {
    /// `airlock-signer export`: account descriptors for the watcher or another coordinator.
    struct Export: AsyncParsableCommand {
        enum Format: String, CaseIterable, ExpressibleByArgument {
            case descriptor, json, ur, bsms
        }

        static let configuration = CommandConfiguration(
            abstract: "Export account descriptors (public keys only) for the watcher or another coordinator.",
            discussion: """
                descriptor: one account descriptor with key origin and both branches, e.g.
                  wpkh([d34db33f/84h/1h/0h]tpub…/<0;1>/*)#checksum
                (for --script wsh-multi the BIP48 cosigner key [fp/48h/1h/0h/2h]tpub…).
                json: the generic JSON export of Coldcard (bip44, bip49, bip84, bip86, bip48_2), which Sparrow reads.
                ur: ur:crypto-account with every account (or only --script).
                bsms: the BIP129 (BSMS 1.0) key record of round 1 for the BIP48 P2WSH cosigner key: BSMS 1.0, the \
                token, [fp/48h/COINh/ACCOUNTh/2h]xpub, a description and a legacy signature by that key of the \
                first four lines; with --token HEX (8 or 16 bytes) the record is encrypted (hex MAC and \
                AES-256-CTR ciphertext), without it the token is 00 and the record is plain text.

                Examples:
                  airlock-signer export --script wpkh
                  airlock-signer export --format ur --qr account.png
                  airlock-signer export --format json --out coldcard-export.json
                  airlock-signer export --script wsh-multi --account 0 --terminal
                  airlock-signer export --chain eth --qr metamask.png
                  airlock-signer export --format bsms --token a54044308ceac9b7 --out signer.dat
                """)

        @OptionGroup var options: VaultOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "Account number.") var account: UInt32 = 0
        @Option(help: "Script: wpkh, sh-wpkh, pkh, tr or wsh-multi (default wpkh; json/ur: all).")
        var script: AccountScript?
        @Option(help: "descriptor, json, ur or bsms.") var format: Format = .descriptor
        @Option(help: "btc, or eth for ur:crypto-hdkey of m/44'/60'/0' (MetaMask's QR wallet).") var chain: Chain = .btc
        @Option(help: "With --format bsms: the BIP129 session token (hex, 8 or 16 bytes; default 00, unencrypted).")
        var token: String?

        func validate() throws {
            guard account < 0x8000_0000 else { throw ValidationError("--account must be below 2^31") }
            if token != nil, format != .bsms { throw ValidationError("--token is for --format bsms") }
            if format == .bsms, let script, script != .wshMulti {
                throw ValidationError("--format bsms exports the wsh-multi cosigner key")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                if chain == .eth { return try EthereumAccountCommands.export(options: options, output: output) }
                let unlocked = try options.unlock()
                let master = try options.masterKey(of: unlocked)
                let export = try AccountExport(
                    master: master, format: format.library, script: script, account: account,
                    network: unlocked.network)
                let (payload, text) = try encoded(export, master: master)
                let written = try output.write(payload, fileBytes: Array((text + "\n").utf8), json: options.json)
                if options.json {
                    try JSONOutput.print(export.report(format: format.library, data: text), files: written)
                } else if output.out == nil, output.qr == nil, !output.terminal {
                    print(text)
                } else {
                    OutputOptions.printWritten(written)
                }
            }
        }

        /// The export as a payload to write and its text.
        private func encoded(_ export: AccountExport, master: ExtendedPrivateKey) throws -> (Payload, String) {
            switch format {
            case .descriptor: return (.descriptor(export.descriptorText), export.descriptorText)
            case .json:
                let text = try export.genericJSON()
                return (.json(text), text)
            case .bsms:
                let text = try export.bsmsRecord(token: token)
                return (.text(text), text)
            case .ur:
                let payload = Payload.cryptoAccount(AccountUR.account(master: master, accounts: export.accounts))
                return (payload, try FrameEncoder().frames(for: payload, format: .ur).joined(separator: "\n"))
            }
        }
    }
}

extension AirlockSigner.Export.Format {
    var library: AccountExport.Format { AccountExport.Format(rawValue: rawValue) ?? .descriptor }
}
