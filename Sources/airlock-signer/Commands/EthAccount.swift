import AirgapTransport
import Bitcoin
import CLISupport
import Ethereum
import EthereumSigner
import Signer

/// `address --chain eth` and `export --chain eth` (docs/architecture.md section 10): BIP44 `m/44'/60'/0'/0/i` accounts, EIP-55
/// addresses, and the account key as `ur:crypto-hdkey` for MetaMask's QR hardware wallet import.
enum EthereumAccountCommands {
    /// `address --chain eth --json`.
    struct AddressOutput: Encodable {
        let address: String
        let path: String
    }

    /// `export --chain eth --json`.
    struct ExportOutput: Encodable {
        struct Entry: Encodable {
            let index: Int
            let address: String
            let path: String
        }
        let chain: String
        let path: String
        let masterFingerprint: String
        let ur: String
        let addresses: [Entry]

        enum CodingKeys: String, CodingKey {
            case chain, path, ur, addresses
            case masterFingerprint = "master_fingerprint"
        }
    }

    static func address(options: VaultOptions, output: OutputOptions, index: UInt32) throws {
        let unlocked = try options.unlock()
        let master = try options.masterKey(of: unlocked)
        let (address, path) = try EthereumSigningSession(master: master).address(index: index)
        let text = address.checksummed
        let written = try output.write(.address(text), fileBytes: Array((text + "\n").utf8), json: options.json)
        if options.json {
            try JSONOutput.print(
                AddressOutput(address: text, path: path.description.replacingOccurrences(of: "h", with: "'")),
                files: written)
        } else {
            print(text)
            Diagnostics.print(path.description.replacingOccurrences(of: "h", with: "'"))
            OutputOptions.printWritten(written)
        }
    }

    /// The account key `m/44'/60'/0'` as `crypto-hdkey`: chain code, origin with the master fingerprint, children
    /// `0/*`, the parent fingerprint, and Keystone's `account.standard` note that MetaMask reads as BIP44.
    static func hdKey(master: ExtendedPrivateKey) throws -> URHDKey {
        let account = try master.derive(DerivationPath(string: "m/44'/60'/0'"))
        return URHDKey(
            keyData: account.publicKey.compressed, chainCode: account.chainCode,
            origin: URKeypath(
                components: [.index(44, hardened: true), .index(60, hardened: true), .index(0, hardened: true)],
                sourceFingerprint: KeyFingerprint(rawValue: master.fingerprint.value), depth: 3),
            children: URKeypath(components: [.index(0, hardened: false), .wildcard(hardened: false)]),
            parentFingerprint: KeyFingerprint(rawValue: account.parentFingerprint.value), name: "Airlock",
            note: "account.standard")
    }

    static func export(options: VaultOptions, output: OutputOptions) throws {
        let unlocked = try options.unlock()
        let master = try options.masterKey(of: unlocked)
        let key = try hdKey(master: master)
        let urText = try URRegistryItem.hdKey(key).ur().string
        let session = EthereumSigningSession(master: master)
        var entries: [ExportOutput.Entry] = []
        for index in 0..<5 {
            let (address, path) = try session.address(index: UInt32(index))
            entries.append(
                .init(
                    index: index, address: address.checksummed,
                    path: path.description.replacingOccurrences(of: "h", with: "'")))
        }
        let written = try output.write(.hdKey(key), fileBytes: Array((urText + "\n").utf8), json: options.json)
        if options.json {
            try JSONOutput.print(
                ExportOutput(
                    chain: "eth", path: "m/44'/60'/0'", masterFingerprint: master.fingerprint.hexString, ur: urText,
                    addresses: entries), files: written)
        } else {
            if !output.isRequested { print(urText) }
            for entry in entries { Diagnostics.print("\(entry.path)  \(entry.address)") }
            OutputOptions.printWritten(written)
        }
    }
}
