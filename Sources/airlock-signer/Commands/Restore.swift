import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Foundation
import SeedBackup
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer restore`: a vault from an existing BIP39 mnemonic or SLIP-39 shares.
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the vault from an existing BIP39 mnemonic or SLIP-39 shares.",
            discussion: """
                The words come from --mnemonic-file (whitespace or newlines between words) or are typed on the \
                terminal without echo. A word that is not in the BIP39 list gets the nearest valid words as a hint.

                Examples:
                  airlock-signer restore --network test
                  airlock-signer restore --mnemonic-file words.txt --password-file pw.txt --kdf-memory 64
                  airlock-signer restore --slip39
                  airlock-signer restore --slip39 --shares-file shares.txt --passphrase
                  airlock-signer restore --seedqr card-photo.jpg
                  airlock-signer restore --camera /dev/video0 --network test

                With --slip39 the shares are typed one per line until enough are given (each group's threshold, for \
                the group threshold of groups), or read from --shares-file (one share a line; blank lines and lines \
                starting with # are skipped; extra shares are allowed). --passphrase is the SLIP-39 passphrase: \
                another passphrase gives another wallet, as on a Trezor.

                With --seedqr IN the words come from a SeedQR (SeedSigner's Standard or Compact; told apart by \
                the payload) in a PNG, JPEG or GIF image, a photo of a card included. With --camera [DEVICE] the \
                SeedQR is read live from a camera (default /dev/video0; a video file stands in for one): the first \
                SeedQR seen is used, other QR codes are skipped.
                """)

        @OptionGroup var options: VaultOptions
        @Option(help: "Read the mnemonic from PATH ('-' is stdin).") var mnemonicFile: String?
        @Option(help: "Network: main, test, signet or regtest.") var network: String = "main"
        @Flag(help: "Use a BIP39 passphrase (asked for twice, or --passphrase-file).") var passphrase = false
        @Flag(help: "Seal the BIP39 passphrase in the vault.") var storePassphrase = false
        @Flag(help: "Replace an existing vault.") var force = false
        @Option(help: "Argon2id memory in MiB (at least 64).") var kdfMemory: Int = 256
        @Flag(help: "Restore from SLIP-39 shares instead of BIP39 words.") var slip39 = false
        @Option(help: "Read the SLIP-39 shares from PATH, one a line ('-' is stdin; with --slip39).")
        var sharesFile: String?
        @Option(help: "Read the words from a SeedQR (standard or compact) in the image IN.") var seedqr: String?
        @OptionGroup var camera: CameraOptions
        @Argument(help: "With --camera: the camera device (default /dev/video0) or a video file showing the SeedQR.")
        var device: String?

        func validate() throws {
            guard Network(name: network) != nil else { throw ValidationError("unknown network '\(network)'") }
            guard kdfMemory >= 64, kdfMemory <= 4096 else { throw ValidationError("--kdf-memory must be 64...4096") }
            if [seedqr != nil, slip39, mnemonicFile != nil, camera.camera].filter({ $0 }).count > 1 {
                throw ValidationError("give one of --seedqr, --camera, --slip39 and --mnemonic-file")
            }
            if device != nil, !camera.camera { throw ValidationError("a DEVICE argument needs --camera") }
            if sharesFile != nil, !slip39 { throw ValidationError("--shares-file needs --slip39") }
            if slip39, mnemonicFile != nil { throw ValidationError("--mnemonic-file is for BIP39 words, not --slip39") }
            if slip39, options.passwordFile == "-", sharesFile == nil || sharesFile == "-" {
                throw ValidationError("the shares and the password cannot both come from stdin")
            }
            if mnemonicFile == "-", options.passwordFile == "-" {
                throw ValidationError("the mnemonic and the password cannot both come from stdin")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                let vault = try options.newVault(force: force)
                if slip39 { return try restoreSLIP39(vault: vault) }
                let mnemonic = try readMnemonic()
                let secrets = try options.newSecrets(passphrase: passphrase, what: "BIP39")
                let header = try vault.create(
                    mnemonic: mnemonic, passphrase: secrets.passphrase, storePassphrase: storePassphrase,
                    network: Network(name: network) ?? .main, password: secrets.password,
                    kdf: Argon2Parameters(memoryBytes: kdfMemory << 20, iterations: 3), overwrite: force)
                if options.json {
                    try JSONOutput.print(
                        RestoreJSON(
                            vault: options.vaultPath, network: header.network.rawValue,
                            masterFingerprint: header.masterFingerprint.hexString, words: mnemonic.wordCount))
                } else {
                    print(
                        "Vault restored to \(options.vaultPath) (network \(header.network.rawValue), "
                            + "master fingerprint \(header.masterFingerprint)).")
                }
            }
        }

        /// A message for a mnemonic error; an unknown word names its position and the nearest valid words.
        static func explain(_ error: MnemonicError) -> String {
            switch error {
            case .unknownWord(let number, let suggestions):
                let hint = suggestions.isEmpty ? "" : "; did you mean: \(suggestions.joined(separator: ", "))?"
                return "word \(number) is not in the BIP39 English wordlist\(hint)"
            case .invalidChecksum:
                return "the checksum does not match: a word is wrong or out of order"
            case .invalidWordCount(let count):
                return "\(count) words; a mnemonic has 12, 15, 18, 21 or 24"
            case .invalidEntropyLength(let count):
                return "invalid entropy length \(count)"
            }
        }
    }
}

extension AirlockSigner.Restore {
    /// `restore --slip39`: the encrypted master secret from the shares, sealed with the SLIP-39 passphrase's choice.
    func restoreSLIP39(vault: Vault) throws {
        let shares = try SLIP39Backup.readShares(file: sharesFile).selected()
        let encrypted = try SLIP39ShareSet(shares).recover()
        let secrets = try options.newSecrets(passphrase: passphrase, what: "SLIP-39")
        let header = try vault.create(
            secret: .slip39(encrypted), passphrase: secrets.passphrase, storePassphrase: storePassphrase,
            network: Network(name: network) ?? .main, password: secrets.password,
            kdf: Argon2Parameters(memoryBytes: kdfMemory << 20, iterations: 3), overwrite: force)
        if options.json {
            try JSONOutput.print(
                RestoreSLIP39JSON(
                    vault: options.vaultPath, network: header.network.rawValue,
                    masterFingerprint: header.masterFingerprint.hexString, sharesUsed: shares.count,
                    secretBytes: encrypted.value.count))
        } else {
            print(
                "Vault restored from \(shares.count) SLIP-39 shares to \(options.vaultPath) (network "
                    + "\(header.network.rawValue), master fingerprint \(header.masterFingerprint)).")
        }
    }
}

extension AirlockSigner.Restore {
    /// The mnemonic: from the SeedQR image, the --mnemonic-file, or typed.
    func readMnemonic() throws -> Mnemonic {
        if let seedqr { return try Self.readSeedQR(seedqr) }
        if camera.camera { return try Self.readSeedQR(camera: try camera.source(device.map { [$0] } ?? []), camera) }
        let phrase =
            try mnemonicFile.map { try SecretInput.contents(ofFile: $0) }
            ?? Prompt.secret("Mnemonic words (separated by spaces): ")
        do throws(MnemonicError) { return try Mnemonic(phrase: phrase) } catch {
            throw CLIError(.invalidInput, Self.explain(error))
        }
    }

    /// The mnemonic of the first SeedQR the camera sees (other codes are skipped).
    static func readSeedQR(camera source: CameraSource, _ options: CameraOptions) throws -> Mnemonic {
        var code = try InputReader.readCameraCode(source, looking: "SeedQR", timeout: options.duration) { bytes in
            (try? SeedQR.read(SecretBytes(copying: bytes))) != nil
        }
        defer { SecretBytes.wipe(&code) }
        do throws(SeedQRError) { return try SeedQR.read(SecretBytes(copying: code)).mnemonic } catch {
            throw CLIError(.invalidInput, "the SeedQR from \(source.name) cannot be read: \(error)")
        }
    }

    /// The mnemonic of the one SeedQR in the image at `path`.
    static func readSeedQR(_ path: String) throws -> Mnemonic {
        var codes = try InputReader.rawCodes(ofImage: path)
        defer { for i in codes.indices { SecretBytes.wipe(&codes[i]) } }
        guard codes.count == 1 else {
            throw CLIError(.invalidInput, "\(path) holds \(codes.count) QR codes; a SeedQR image holds one")
        }
        do throws(SeedQRError) {
            return try SeedQR.read(SecretBytes(copying: codes[0])).mnemonic
        } catch {
            switch error {
            case .unrecognizedPayload(let count):
                throw CLIError(
                    .invalidInput,
                    "the QR code in \(path) is not a SeedQR (\(count) bytes; a SeedQR holds 48-96 digits or "
                        + "16-32 bytes)")
            case .indexOutOfRange(let word, let index):
                throw CLIError(.invalidInput, "SeedQR word \(word) is \(index), above the last word (2047)")
            case .invalidMnemonic(let inner):
                throw CLIError(.invalidInput, "the SeedQR in \(path): " + explain(inner))
            }
        }
    }
}
