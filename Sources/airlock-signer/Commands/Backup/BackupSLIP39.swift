import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import SeedBackup
import Signer

extension AirlockSigner {
    /// `airlock-signer backup slip39`: SLIP-39 shares of the vault's seed, each shown once and checked back.
    struct BackupSLIP39: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "slip39",
            abstract: "Write SLIP-39 shares of the seed (each shown once and checked back).",
            discussion: """
                --shares MofN makes one group of N shares, any M of which restore the seed; --groups \\
                G_of_N:MofN,MofN,… makes N groups, any G of which restore it (each with its own M of N). At most 16 \\
                groups of 16 shares.

                A SLIP-39 vault (init --slip39, restore --slip39) is split again: the new shares belong to the same \\
                backup (same identifier, same SLIP-39 passphrase) and combine with each other only. A BIP39 vault's \\
                shares hold its 64-byte BIP39 seed (the BIP39 passphrase applied): restored by Airlock or \\
                python-shamir-mnemonic they give the same wallet, but never the BIP39 words again, and a Trezor \\
                refuses them (it takes 16 or 32 bytes). --slip39-passphrase encrypts those shares with a new SLIP-39 \\
                passphrase (default: none). See docs/signer.md.

                The words are printed only to a terminal unless --show-secret is given.

                Examples:
                  airlock-signer backup slip39 --shares 2of3
                  airlock-signer backup slip39 --groups 1of2:2of3,3of5
                  airlock-signer backup slip39 --shares 3of5 --json --show-secret --skip-backup-check > shares.json
                """)

        @OptionGroup var options: VaultOptions
        @Option(help: "One group: M of N shares (e.g. 2of3).") var shares: String?
        @Option(help: "Several groups: G_of_N:MofN,MofN,… (e.g. 1of2:2of3,3of5).") var groups: String?
        @Option(help: "Iteration exponent 0-15 for the shares of a BIP39 vault (10,000 × 2^E PBKDF2 rounds).")
        var iterationExponent: Int = 1
        @Flag(help: "Encrypt the shares of a BIP39 vault with a new SLIP-39 passphrase (asked for twice).")
        var slip39Passphrase = false
        @Option(help: "Read that SLIP-39 passphrase from PATH.") var slip39PassphraseFile: String?
        @Flag(help: "Print the shares even when standard output is not a terminal.") var showSecret = false
        @Flag(help: "Skip checking each share back (for scripts that keep the shares themselves).")
        var skipBackupCheck = false

        func validate() throws {
            guard (shares == nil) != (groups == nil) else {
                throw ValidationError("give exactly one of --shares MofN and --groups G_of_N:MofN,…")
            }
            if let shares, shares.contains(":") {
                throw ValidationError("--shares takes MofN; use --groups for groups")
            }
            if let groups, !groups.contains(":") { throw ValidationError("--groups takes G_of_N:MofN,MofN,…") }
            _ = try SLIP39Backup.layout(shares ?? groups ?? "")
            guard (0...15).contains(iterationExponent) else {
                throw ValidationError("--iteration-exponent must be 0...15")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                let layout = try SLIP39Backup.layout(shares ?? groups ?? "")
                guard showSecret || isatty(STDOUT_FILENO) == 1 else {
                    throw CLIError(
                        .refused,
                        "refusing to print SLIP-39 shares to standard output, which is not a terminal; run on a "
                            + "terminal, or pass --show-secret")
                }
                let unlocked = try options.unlock()
                let asked = slip39Passphrase || slip39PassphraseFile != nil
                let made = try unlocked.slip39Shares(
                    layout, iterationExponent: iterationExponent, seed: { try seedOfBIP39Vault(unlocked) },
                    newPassphrase: !asked
                        ? nil
                        : {
                            try SecretInput.newSecret(
                                file: slip39PassphraseFile, prompt: "New SLIP-39 passphrase: ", what: "passphrase")
                        })
                try SLIP39Backup.present(
                    made, groupThreshold: layout.groupThreshold, json: options.json, check: !skipBackupCheck,
                    masterFingerprint: unlocked.header.masterFingerprint.hexString)
            }
        }

        /// The BIP39 seed (with the BIP39 passphrase: the stored one, --passphrase-file, or asked for).
        func seedOfBIP39Vault(_ unlocked: UnlockedVault) throws -> SecretBytes {
            if let file = options.passphraseFile {
                return try unlocked.seed(passphrase: SecretInput.line(fromFile: file))
            }
            if unlocked.needsPassphrase { return try unlocked.seed(passphrase: Prompt.secret("BIP39 passphrase: ")) }
            return try unlocked.seed()
        }
    }
}
