public import Bitcoin
public import BitcoinCrypto
public import Ethereum

/// Why `key export` does not export.
public enum KeyExportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A WIF or hex key would be printed without `--show-secret`.
    case secretNotRequested
    /// No imported key of the chain has the address given.
    case noImportedKey(chain: ImportedKey.Chain, address: String)
    /// The path given is not a derivation path.
    case invalidPath(String)

    public var description: String {
        switch self {
        case .secretNotRequested: "refusing to print a private key without --show-secret"
        case .noImportedKey(let chain, let address): "no imported \(chain.name) key has address \(address)"
        case .invalidPath(let text): "--path: '\(text)' is not a derivation path"
        }
    }
}

/// The one private key `key export` hands out (docs/signer.md): the seed's at a path or at an index of the default
/// account, or an imported key found by address; what the review shows before the user confirms; the key as WIF,
/// hex or a keystore v3 file.
public struct KeyExportPlan: Sendable {
    /// The exported form.
    public enum Format: String, Sendable, CaseIterable {
        case wif, hex, keystore
    }

    /// The chain.
    public let chain: ImportedKey.Chain
    /// The key.
    let key: PrivateKey
    /// Whether a Bitcoin key's public key is used compressed.
    let compressed: Bool
    /// The seed's derivation path, or nil for an imported key.
    public let path: String?
    /// An imported key's label (nil when none or derived).
    public let label: String?
    /// The address the review names: EIP-55 for Ethereum, P2WPKH (P2PKH when uncompressed) for Bitcoin.
    public let address: String
    /// The vault's network.
    public let network: Network

    /// Refuses to put a WIF or hex key on the screen unless it was asked for.
    ///
    /// - Throws: `KeyExportError.secretNotRequested`.
    public static func check(_ format: Format, showSecret: Bool) throws(KeyExportError) {
        if format != .keystore, !showSecret { throw .secretNotRequested }
    }

    /// The default path of `index`: `m/44'/60'/0'/0/N` for Ethereum, `m/84'/c'/0'/0/N` for Bitcoin.
    public static func defaultPath(chain: ImportedKey.Chain, index: UInt32, network: Network) -> String {
        chain == .ethereum ? "m/44'/60'/0'/0/\(index)" : "m/84'/\(network.coinType)'/0'/0/\(index)"
    }

    /// The key to export.
    ///
    /// The imported key with `address` (any case), else the seed's at `path` or at `index` (default 0) of the
    /// default account. `master` is asked only for a seed key.
    ///
    /// - Throws: `KeyExportError.noImportedKey`, `.invalidPath`, and what `master` throws.
    public init(
        vault: UnlockedVault, chain: ImportedKey.Chain, address wanted: String?, path: String?, index: UInt32?,
        master: () throws -> ExtendedPrivateKey
    ) throws {
        network = vault.network
        self.chain = chain
        if let wanted {
            let match = vault.importedKeys.first {
                $0.chain == chain && $0.address(network: vault.network).lowercased() == wanted.lowercased()
            }
            guard let match else { throw KeyExportError.noImportedKey(chain: chain, address: wanted) }
            (key, compressed, self.path) = (match.key, match.compressed, nil)
            label = match.label.isEmpty ? nil : match.label
        } else {
            let master = try master()
            let text = path ?? Self.defaultPath(chain: chain, index: index ?? 0, network: vault.network)
            let derivation: DerivationPath
            do { derivation = try DerivationPath(string: text) } catch { throw KeyExportError.invalidPath(text) }
            (key, compressed, self.path, label) = (try master.derive(derivation).privateKey, true, text, nil)
        }
        address =
            chain == .ethereum
            ? key.ethereumAddress.checksummed
            : ImportedKey(chain: .bitcoin, key: key, compressed: compressed).address(network: vault.network)
    }

    /// What the user confirms: the address, which key, and where it goes (`destination`); whether the label held
    /// hidden characters (shown escaped).
    public func review(destination: String) -> (text: String, hiddenCharacters: Bool) {
        let shownLabel = label.map { DisplayText.show($0) }
        let text = [
            "Export a private key (whoever holds it can spend without this vault)",
            "  address: \(address)",
            "  key: " + (path ?? "imported" + (shownLabel.map { " '\($0.text)'" } ?? "")),
            "  as: \(destination)",
        ].joined(separator: "\n")
        return (text, shownLabel?.hadHiddenCharacters ?? false)
    }

    /// The key as WIF (Bitcoin) or hex (`0x` before an Ethereum key's).
    public func secret(_ format: Format) -> String {
        switch format {
        case .wif: WIF(privateKey: key, isCompressed: compressed, network: network).base58String
        case .hex, .keystore: (chain == .ethereum ? "0x" : "") + key.secret.unsafeCopyToArray().hexString
        }
    }

    /// The key as keystore v3 JSON under `password` (scrypt as Geth writes it, or PBKDF2 with 262,144 rounds).
    public func keystore(password: SecretBytes, scrypt: Bool) -> String {
        KeystoreV3.encrypt(key: key, password: password, kdf: scrypt ? .standard : .pbkdf2(iterations: 262_144))
    }
}
