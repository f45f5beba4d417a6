import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import SeedBackup
import Signer

extension AirlockSigner {
    /// `airlock-signer init`: a new seed from the OS random source, shown once, checked, sealed in the vault.
    struct Init: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a new seed and its encrypted vault.",
            discussion: """
                The seed comes from the operating system's random source; with --dice, d6 rolls typed by you are \
                hashed together with it (they never replace it). The words are shown once, then a backup check \
                asks for three randomly chosen words (one per line on stdin); the vault is written only after it \
                passes. --skip-backup-check is for scripts that keep the words themselves.

                The words are printed only to a terminal: when standard output is a file or a pipe (a script, \
                --json into a file), init refuses (exit 4) unless --show-secret says the words may go there.

                Examples on a terminal (the words are shown there, then three of them are asked back):
                  airlock-signer init --words 24
                  airlock-signer init --network regtest
                  airlock-signer init --dice --passphrase --store-passphrase
                  airlock-signer init --slip39 2of3
                  airlock-signer init --slip39 1of2:2of3,3of5 --strength 128 --passphrase

                In a script (no terminal: the words go to the file, which then needs the care the seed does):
                  airlock-signer init --network regtest --password-file pw.txt --kdf-memory 64 --show-secret \\
                    --skip-backup-check --json > words.json

                With --slip39 the seed is a SLIP-39 master secret (--strength 128 or 256 bits; shares of 20 or 33 \
                words) split into shares: "2of3" is one group of three shares, any two of which restore it; \
                "1of2:2of3,3of5" is two groups, either of which restores it (two of its three, or three of its five \
                shares). Each share is shown once and checked back (three of its words). --passphrase is then the \
                SLIP-39 passphrase. The master secret is the BIP32 seed, as on a Trezor (docs/signer.md).
                """)

        @OptionGroup var options: VaultOptions
        @Option(help: "Number of words: 12 or 24.") var words: Int = 24
        @Flag(help: "Mix in d6 dice rolls (at least 50 for 12 words, 99 for 24).") var dice = false
        @Option(help: "Network: main, test, signet or regtest.") var network: String = "main"
        @Flag(help: "Use a BIP39 passphrase (asked for twice, or --passphrase-file).") var passphrase = false
        @Flag(help: "Seal the BIP39 passphrase in the vault (default: asked for on every use).")
        var storePassphrase = false
        @Flag(help: "Replace an existing vault.") var force = false
        @Option(help: "Argon2id memory in MiB (at least 64).") var kdfMemory: Int = 256
        @Flag(help: "Skip the word check (for scripts that keep the words themselves).") var skipBackupCheck = false
        @Flag(help: "Print the new words even when standard output is not a terminal (a file or a pipe).")
        var showSecret = false
        @Option(help: "Make a SLIP-39 backup instead of BIP39 words: MofN or G_of_N:MofN,MofN,… (e.g. 2of3).")
        var slip39: String?
        @Option(help: "SLIP-39 master secret size in bits: 128 or 256 (with --slip39).") var strength: Int = 256
        @Option(help: "SLIP-39 iteration exponent 0-15: 10,000 × 2^E PBKDF2 rounds (with --slip39).")
        var iterationExponent: Int = 1

        func validate() throws {
            guard [12, 24].contains(words) else { throw ValidationError("--words must be 12 or 24") }
            guard Network(name: network) != nil else { throw ValidationError("unknown network '\(network)'") }
            guard kdfMemory >= 64, kdfMemory <= 4096 else { throw ValidationError("--kdf-memory must be 64...4096") }
            if storePassphrase, !passphrase, options.passphraseFile == nil {
                throw ValidationError("--store-passphrase needs --passphrase")
            }
            if let slip39 {
                _ = try SLIP39Backup.layout(slip39)
                guard [128, 256].contains(strength) else { throw ValidationError("--strength must be 128 or 256") }
                guard (0...15).contains(iterationExponent) else {
                    throw ValidationError("--iteration-exponent must be 0...15")
                }
                guard !dice else { throw ValidationError("--dice makes BIP39 words; it cannot be used with --slip39") }
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                let vault = try options.newVault(force: force)
                guard showSecret || isatty(STDOUT_FILENO) == 1 else {
                    throw CLIError(
                        .refused,
                        "refusing to print the new seed's words to standard output, which is not a terminal (a file "
                            + "or a pipe would keep them); run init on a terminal, or pass --show-secret; "
                            + "nothing was written")
                }
                let chosenNetwork = Network(name: network) ?? .main
                if let slip39 {
                    try initSLIP39(vault: vault, layout: SLIP39Backup.layout(slip39), network: chosenNetwork)
                    return
                }
                var entropy = SecureRandom.secret(words * 4 / 3)
                if dice { entropy = try DiceInput.mix(osEntropy: entropy, words: words) }
                let mnemonic = try Mnemonic(entropy: entropy)
                let secrets = try options.newSecrets(passphrase: passphrase, what: "BIP39")
                try showAndCheck(mnemonic)
                let header = try vault.create(
                    mnemonic: mnemonic, passphrase: secrets.passphrase, storePassphrase: storePassphrase,
                    network: chosenNetwork, password: secrets.password,
                    kdf: Argon2Parameters(memoryBytes: kdfMemory << 20, iterations: 3), overwrite: force)
                Diagnostics.print(
                    "Vault written to \(options.vaultPath) (network \(header.network.rawValue), "
                        + "master fingerprint \(header.masterFingerprint)).")
            }
        }
    }
}

extension AirlockSigner.Init {
    /// Shows the new words, then (unless --skip-backup-check) asks that they were written down and checks them back.
    func showAndCheck(_ mnemonic: Mnemonic) throws {
        try BackupCheck.show(mnemonic, json: options.json, words: words)
        guard !skipBackupCheck else { return }
        if isatty(STDIN_FILENO) == 1 {
            guard Prompt.confirm("Have you written the words down?") else {
                throw CLIError(.refused, "aborted; nothing was written")
            }
            FileHandle.standardError.write(Data("\u{1B}[2J\u{1B}[H".utf8))
        }
        try BackupCheck.run(mnemonic)
    }

    /// `init --slip39`: a new master secret, split into shares, each shown and checked, then sealed.
    func initSLIP39(vault: Vault, layout: SLIP39Layout, network: Network) throws {
        let masterSecret = SecureRandom.secret(strength / 8)
        let (password, slip39Passphrase) = try options.newSecrets(passphrase: passphrase, what: "SLIP-39")
        let encrypted = SLIP39.EncryptedMasterSecret(
            encrypting: masterSecret, passphrase: slip39Passphrase ?? SecretBytes(count: 0),
            iterationExponent: iterationExponent)
        let groups: [[SLIP39Share]]
        do throws(SLIP39Error) {
            groups = try SLIP39.split(encrypted, groupThreshold: layout.groupThreshold, groups: layout.groups)
        } catch { throw CLIError(.usage, SLIP39ShareSet.explain(error)) }
        let fingerprint = try ExtendedPrivateKey(seed: masterSecret, network: network).fingerprint
        try SLIP39Backup.present(
            groups, groupThreshold: layout.groupThreshold, json: options.json, check: !skipBackupCheck,
            masterFingerprint: fingerprint.hexString)
        let header = try vault.create(
            secret: .slip39(encrypted), passphrase: slip39Passphrase, storePassphrase: storePassphrase,
            network: network, password: password,
            kdf: Argon2Parameters(memoryBytes: kdfMemory << 20, iterations: 3), overwrite: force)
        Diagnostics.print(
            "Vault written to \(options.vaultPath) (SLIP-39, network \(header.network.rawValue), "
                + "master fingerprint \(header.masterFingerprint)).")
    }
}

/// Reads the dice rolls on stdin; the library (`Signer.DiceEntropy`) keeps them and mixes them in.
enum DiceInput {
    static func mix(osEntropy: SecretBytes, words: Int) throws -> SecretBytes {
        var dice = DiceEntropy(words: words)
        Diagnostics.print("Type at least \(dice.needed) d6 rolls (1-6), on one or more lines; an empty line ends.")
        while dice.count < DiceEntropy.capacity, let line = readLine(strippingNewline: true) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty, dice.isEnough { break }
            dice.add(line: line)
            if dice.isEnough, line.isEmpty { break }
            Diagnostics.print("\(dice.count) rolls so far.")
        }
        do { return try dice.mix(osEntropy: osEntropy) } catch { throw CLIError(.invalidInput, error.description) }
    }
}
