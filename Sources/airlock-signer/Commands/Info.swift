import ArgumentParser
import Bitcoin
import CLISupport
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer info`: what the vault header says, once the password has authenticated it; no secrets.
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Show the vault's network, master fingerprint, registered wallets and imported keys (no secrets).",
            discussion: """
                Asks for the password (or --password-file) and shows only what the vault key authenticates: the \
                header is bound to the sealed payload, so an edited header (a wallet slipped in) fails (exit 3).

                Examples:
                  airlock-signer info
                  airlock-signer info --json
                """)

        @OptionGroup var options: VaultOptions

        func run() async throws {
            try await ErrorReporting.run {
                // Only what the vault key authenticates is shown (the header is bound to the sealed payload).
                let unlocked = try options.unlock()
                let header = unlocked.header
                let keys = unlocked.importedKeys.map {
                    KeyJSON(
                        chain: $0.chain.name, address: $0.address(network: unlocked.network), path: nil,
                        label: DisplayText.clean($0.label), format: nil, secret: nil, keystore: nil, written: nil)
                }
                let auditEntries = (try? AuditLog(vaultPath: options.vaultPath).entries().count) ?? 0
                if options.json {
                    try JSONOutput.print(
                        InfoJSON(
                            vault: options.vaultPath, formatVersion: Int(header.version),
                            network: header.network.rawValue,
                            masterFingerprint: header.masterFingerprint.hexString,
                            kdf: .init(
                                algorithm: "argon2id", memoryMib: Int(header.kdf.memoryBytes >> 20),
                                passes: Int(header.kdf.iterations)),
                            passphraseStored: header.passphraseStored,
                            multisig: header.multisigWallets.map(MultisigWalletReport.init), auditEntries: auditEntries,
                            importedKeys: keys))
                } else {
                    print(Self.text(vault: options.vaultPath, header: header, keys: keys, auditEntries: auditEntries))
                }
            }
        }

        /// The human text of `info`.
        static func text(vault: String, header: VaultHeader, keys: [KeyJSON], auditEntries: Int) -> String {
            var text = "vault: \(vault)\n"
            text += "network: \(header.network.rawValue)\n"
            text += "master fingerprint: \(header.masterFingerprint)\n"
            text += "kdf: argon2id, \(header.kdf.memoryBytes >> 20) MiB, \(header.kdf.iterations) passes\n"
            text += "passphrase stored: \(header.passphraseStored ? "yes" : "no")\n"
            text += "multisig wallets: \(header.multisigWallets.count)\n"
            for wallet in header.multisigWallets {
                text += "  \(DisplayText.clean(wallet.name)): \(DisplayText.clean(wallet.summary))\n"
            }
            if header.multisigWallets.contains(where: { DisplayText.hasHiddenCharacters($0.name) }) {
                text += "  ! " + DisplayText.hiddenCharactersWarning + "\n"
            }
            text += "imported keys: \(keys.count)\n"
            for key in keys {
                let label = key.label ?? ""
                text += "  \(key.chain) \(key.address)" + (label.isEmpty ? "" : " \(label)") + "\n"
            }
            return text + "audit entries: \(auditEntries)"
        }
    }
}
