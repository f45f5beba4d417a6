import ArgumentParser
import Bitcoin
import BitcoinCrypto
import CLISupport
import Ethereum
import Foundation
import Signer

extension AirlockSigner {
    /// `airlock-signer key import IN`: a WIF, hex key or keystore v3 file, sealed into the vault.
    struct KeyImport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a private key (WIF, hex or keystore v3) into the vault, sealed with the seed.",
            discussion: """
                IN is a file or '-' (stdin) holding a WIF key (Bitcoin), 64 hex digits (with --chain), or a \
                keystore v3 JSON file (Ethereum; scrypt or pbkdf2, its password from --keystore-password-file or \
                asked). The key is sealed inside the vault's encrypted payload; `key list` and `info` show its \
                address, and an eth-sign-request naming that address is signed with it. A wrong keystore password \
                exits 3; a key already imported, 4.

                Examples:
                  airlock-signer key import UTC--2025-01-01--abcd.json --keystore-password-file ks.txt
                  airlock-signer key import - --chain eth --label cold < key.hex
                  airlock-signer key import wif.txt --label paper-wallet
                """)

        @OptionGroup var options: VaultOptions
        @Argument(help: "The key: a file holding WIF, hex or keystore v3 JSON, or '-' for stdin.") var input: String
        @Option(help: "btc or eth (needed for a hex key; a WIF is Bitcoin, a keystore Ethereum).") var chain: Chain?
        @Option(help: "Read the keystore's password from the first line of PATH; else it is asked for.")
        var keystorePasswordFile: String?
        @Option(help: "A label shown by `key list` (up to 255 bytes).") var label = ""

        func run() async throws {
            try await ErrorReporting.run {
                let content = try SecretInput.contents(ofFile: input)
                let trimmed = Self.trimmed(content)
                guard trimmed.count > 0 else { throw CLIError(.invalidInput, "\(input) holds no key") }
                let first = trimmed.withUnsafeBytes { $0[0] }
                let imported: ImportedKey
                if first == UInt8(ascii: "{") {
                    if chain == .btc { throw CLIError(.invalidInput, "a keystore v3 file holds an Ethereum key") }
                    let password =
                        try keystorePasswordFile.map { try Prompt.secret(fromFile: $0) }
                        ?? Prompt.secret("Keystore password: ")
                    let (key, _) = try KeystoreV3.decrypt(json: trimmed.unsafeCopyToArray(), password: password)
                    imported = ImportedKey(chain: .ethereum, key: key, label: label)
                } else if let secret = Self.hexKey(trimmed) {
                    guard let chain else {
                        throw CLIError(.usage, "a hex key needs --chain btc or --chain eth")
                    }
                    let key: PrivateKey
                    do { key = try PrivateKey(secret: secret) } catch {
                        throw CLIError(.invalidInput, "the hex is not a valid secp256k1 private key")
                    }
                    imported = ImportedKey(chain: chain == .eth ? .ethereum : .bitcoin, key: key, label: label)
                } else {
                    if chain == .eth { throw CLIError(.invalidInput, "a WIF key is a Bitcoin key (use hex for eth)") }
                    let wif: WIF
                    do { wif = try WIF(base58: String(decoding: trimmed.unsafeCopyToArray(), as: UTF8.self)) } catch {
                        throw CLIError(.invalidInput, "not a WIF key, 64 hex digits or a keystore v3 file")
                    }
                    let unlocked = try options.unlock()
                    guard (wif.network == .main) == (unlocked.network == .main) else {
                        throw CLIError(
                            .invalidInput,
                            "the WIF key is for \(wif.network.rawValue) but this vault is on \(unlocked.network.rawValue)"
                        )
                    }
                    return try store(
                        ImportedKey(chain: .bitcoin, key: wif.privateKey, compressed: wif.isCompressed, label: label),
                        in: unlocked)
                }
                try store(imported, in: try options.unlock())
            }
        }

        private func store(_ imported: ImportedKey, in unlocked: UnlockedVault) throws {
            try unlocked.importKey(imported)
            let address = imported.address(network: unlocked.network)
            if options.json {
                try JSONOutput.print(
                    KeyJSON(
                        chain: imported.chain.name, address: address, path: nil, label: DisplayText.clean(label),
                        format: nil, secret: nil, keystore: nil, written: nil))
            } else {
                print(address)
                Diagnostics.print("imported the \(imported.chain.name) key of \(address) into \(options.vaultPath)")
            }
        }

        /// The content without surrounding white space.
        static func trimmed(_ content: SecretBytes) -> SecretBytes {
            let bounds: Range<Int> = content.withUnsafeBytes { bytes in
                let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
                var start = 0
                var end = bytes.count
                while start < end, space.contains(bytes[start]) { start += 1 }
                while end > start, space.contains(bytes[end - 1]) { end -= 1 }
                return start..<end
            }
            return content.slice(bounds)
        }

        /// 64 hex digits (optional `0x`) decoded into secret memory, or nil.
        static func hexKey(_ text: SecretBytes) -> SecretBytes? {
            text.withUnsafeBytes { bytes -> SecretBytes? in
                var start = 0
                if bytes.count == 66, bytes[0] == UInt8(ascii: "0"), bytes[1] | 0x20 == UInt8(ascii: "x") {
                    start = 2
                }
                guard bytes.count - start == 64 else { return nil }
                func nibble(_ c: UInt8) -> UInt8? {
                    switch c {
                    case 0x30...0x39: c - 0x30
                    case 0x61...0x66: c - 0x61 + 10
                    case 0x41...0x46: c - 0x41 + 10
                    default: nil
                    }
                }
                let out = SecretBytes(count: 32)
                let ok = out.withUnsafeMutableBytes { target -> Bool in
                    for i in 0..<32 {
                        guard let high = nibble(bytes[start + 2 * i]), let low = nibble(bytes[start + 2 * i + 1]) else {
                            return false
                        }
                        target[i] = high << 4 | low
                    }
                    return true
                }
                return ok ? out : nil
            }
        }
    }
}
