import AirGap
import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import Signer

/// Options every vault command shares: `--vault`, `--password-file`, `--passphrase-file`, `--allow-network`,
/// `--json`.
struct VaultOptions: ParsableArguments {
    @Option(help: "Vault file (default: $AIRLOCK_VAULT, else ~/.airlock/vault.airlock).")
    var vault: String?

    @Option(help: "Read the vault password from the first line of PATH ('-' is stdin); else it is asked for.")
    var passwordFile: String?

    @Option(help: "Read the BIP39 passphrase from PATH when the vault does not store it ('-' is stdin).")
    var passphraseFile: String?

    @Flag(help: "Unlock even while network interfaces are up (also AIRLOCK_ALLOW_NETWORK=1).")
    var allowNetwork = false

    @Flag(help: "Machine-readable JSON on stdout.")
    var json = false

    /// The air-gap overrides in effect, as the journal records them.
    var airGapOverrides: [String] {
        (allowNetwork ? ["--allow-network"] : [])
            + (AirGapGuard.environmentAllowsNetwork ? [AirGapGuard.overrideVariable] : [])
    }

    /// The vault path in effect.
    var vaultPath: String { vault ?? Vault.defaultPath }

    /// The vault's password, from `--password-file` or the terminal.
    func password(_ prompt: String = "Vault password: ") throws -> SecretBytes {
        let secret = try passwordFile.map { try Prompt.secret(fromFile: $0) } ?? Prompt.secret(prompt)
        guard secret.count > 0 else { throw CLIError(.usage, "the password is empty") }
        return secret
    }

    /// Checks the air gap, asks for the password and unlocks the vault.
    func unlock() throws -> UnlockedVault {
        try AirGapGuard.requireOffline(allowNetwork: allowNetwork)
        let vault = Vault(path: vaultPath)
        guard vault.exists else { throw VaultError.notFound(path: vaultPath) }
        // A password typed on the terminal gets three tries, as a hardware wallet's PIN screen gives several; a
        // --password-file one, which a retry would not change, gets one.
        let tries = passwordFile == nil ? Self.passwordTries : 1
        for attempt in 1...tries {
            do {
                return try vault.unlock(password: password())
            } catch VaultError.wrongPassword where attempt < tries {
                let left = tries - attempt
                Diagnostics.print("wrong password; \(left) \(left == 1 ? "try" : "tries") left")
            }
        }
        throw VaultError.wrongPassword
    }

    /// Password tries on the terminal before the command gives up (exit 3).
    static let passwordTries = 3

    /// The master key of an unlocked vault, asking for the BIP39 passphrase when the vault needs one.
    func masterKey(of unlocked: UnlockedVault) throws -> ExtendedPrivateKey {
        if let passphraseFile {
            return try unlocked.masterKey(passphrase: SecretInput.line(fromFile: passphraseFile))
        }
        if unlocked.needsPassphrase {
            return try unlocked.masterKey(passphrase: Prompt.secret("BIP39 passphrase: "))
        }
        return try unlocked.masterKey()
    }
}

extension VaultOptions {
    /// `init` and `restore`: the vault at `--vault`, refused when it exists (unless `force`) or while the machine is
    /// online (unless allowed).
    func newVault(force: Bool) throws -> Vault {
        let vault = Vault(path: vaultPath)
        if vault.exists, !force { throw VaultError.alreadyExists(path: vaultPath) }
        try AirGapGuard.requireOffline(allowNetwork: allowNetwork)
        return vault
    }

    /// The new vault's password, and its passphrase (named `what`: BIP39 or SLIP-39) when `passphrase` or
    /// `--passphrase-file` asks for one.
    func newSecrets(passphrase: Bool, what: String) throws -> (password: SecretBytes, passphrase: SecretBytes?) {
        let password = try SecretInput.newSecret(file: passwordFile, prompt: "New vault password: ", what: "password")
        guard passphrase || passphraseFile != nil else { return (password, nil) }
        return (
            password,
            try SecretInput.newSecret(file: passphraseFile, prompt: "\(what) passphrase: ", what: "passphrase")
        )
    }
}
