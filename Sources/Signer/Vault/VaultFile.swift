import Bitcoin
import BitcoinCrypto
import Codecs
import Ethereum
import Foundation

/// The vault file as stored: the header, the nonce and the ciphertext, in one JSON object (docs/formats.md).
struct VaultFile: Sendable, Equatable {
    var header: VaultHeader
    var nonce: [UInt8]
    var ciphertext: [UInt8]

    /// The most Argon2id memory a vault may ask for when opened (4 GiB), so a crafted file cannot exhaust memory.
    static let maximumMemoryBytes = 4 << 30

    init(header: VaultHeader, nonce: [UInt8], ciphertext: [UInt8]) {
        self.header = header
        self.nonce = nonce
        self.ciphertext = ciphertext
    }

    /// Pretty-printed JSON with sorted keys and a final newline.
    ///
    /// These are the bytes Foundation's `JSONSerialization` wrote (`sortedKeys`, `prettyPrinted`,
    /// `withoutEscapingSlashes`) before the Codecs writer, so a vault rewritten by this build differs from one written
    /// by an older build only where its fields do. The AEAD binds the header's `associatedData()`, not these bytes.
    func serialized() -> [UInt8] {
        var object: [String: JSONValue] = [
            "format": .string(VaultHeader.formatName),
            "version": .number(header.version),
            "network": .string(header.network.rawValue),
            "master_fingerprint": .string(header.masterFingerprint.hexString),
            "kdf": .object([
                "algorithm": .string(VaultHeader.kdfName),
                "memory_kib": .number(header.kdf.memoryBytes / 1024),
                "passes": .number(header.kdf.iterations),
                "salt": .string(header.salt.hexString),
            ]),
            "key_check": .string(header.keyCheck.hexString),
            "passphrase_stored": .bool(header.passphraseStored),
            "multisig": .array(
                header.multisigWallets.map { wallet in
                    var entry: [String: JSONValue] = [
                        "name": .string(wallet.name), "descriptor": .string(wallet.descriptorText),
                    ]
                    if !wallet.cosignerNames.isEmpty {
                        entry["cosigners"] = .array(
                            wallet.cosignerNames.map {
                                .object(["fingerprint": .string($0.fingerprint), "name": .string($0.name)])
                            })
                    }
                    return .object(entry)
                }),
            "cipher": .object([
                "algorithm": .string(VaultHeader.cipherName),
                "nonce": .string(nonce.hexString),
                "ciphertext": .string(Base64.encode(ciphertext)),
            ]),
        ]
        if !header.ethereumTokens.isEmpty {
            object["eth_tokens"] = .array(
                header.ethereumTokens.map { token in
                    .object([
                        "chain_id": .number(token.chainID), "address": .string(token.address.checksummed),
                        "symbol": .string(token.symbol), "decimals": .number(token.decimals),
                    ])
                })
        }
        if !header.clearSigningDescriptors.isEmpty {
            object["clear_signing"] = .array(header.clearSigningDescriptors.map { .string($0) })
        }
        if let head = header.auditHead {
            object["audit"] = .object(["entries": .number(head.count), "head": .string(head.hash.hexString)])
        }
        return JSONValue.object(object).sortingMembers().prettySerialized() + [UInt8(ascii: "\n")]
    }

    /// Parses (with the strict parser: a member named twice is refused) and checks every field.
    ///
    /// - Throws: `VaultError.corrupt` naming the field, `.unsupportedVersion`, `.invalidKDFParameters`.
    init(serialized bytes: [UInt8]) throws(VaultError) {
        let root: JSONValue
        do { root = try JSONValue(json: bytes) } catch { throw .corrupt(reason: "\(error)") }
        guard case .object = root else { throw .corrupt(reason: "not a JSON object") }
        guard root["format"]?.stringValue == VaultHeader.formatName else {
            throw .corrupt(reason: "format is not '\(VaultHeader.formatName)'")
        }
        let version = try Self.integer(root, "version")
        guard version >= 1 else { throw .corrupt(reason: "version \(version)") }
        guard version <= VaultHeader.currentVersion else { throw .unsupportedVersion(version) }
        guard let networkName = root["network"]?.stringValue, let network = Network(rawValue: networkName) else {
            throw .corrupt(reason: "network is missing or unknown")
        }
        let fingerprint: Fingerprint
        do { fingerprint = try Fingerprint(hex: try Self.string(root, "master_fingerprint")) } catch {
            throw .corrupt(reason: "master_fingerprint is not 8 hex digits")
        }
        guard let kdf = root["kdf"], case .object = kdf else { throw .corrupt(reason: "kdf is missing") }
        guard kdf["algorithm"]?.stringValue == VaultHeader.kdfName else {
            throw .corrupt(reason: "kdf algorithm is not \(VaultHeader.kdfName)")
        }
        let memoryKiB = try Self.integer(kdf, "memory_kib", in: "kdf")
        let passes = try Self.integer(kdf, "passes", in: "kdf")
        guard memoryKiB >= Argon2Parameters.minimumMemoryBytes / 1024, memoryKiB <= Self.maximumMemoryBytes / 1024,
            (1...64).contains(passes)
        else { throw .invalidKDFParameters(memoryMiB: memoryKiB / 1024, passes: passes) }
        let salt = try Self.hex(kdf, "salt", length: PasswordSeal.saltLength, in: "kdf")
        let keyCheck = try Self.hex(root, "key_check", length: VaultHeader.keyCheckLength)
        guard let passphraseStored = root["passphrase_stored"]?.boolValue else {
            throw .corrupt(reason: "passphrase_stored is missing or not a boolean")
        }
        guard let walletList = root["multisig"]?.arrayValue else { throw .corrupt(reason: "multisig is not a list") }
        var wallets: [MultisigWallet] = []
        for (n, entry) in walletList.enumerated() {
            guard let name = entry["name"]?.stringValue, let descriptor = entry["descriptor"]?.stringValue else {
                throw .corrupt(reason: "multisig entry \(n + 1) lacks a name or descriptor")
            }
            // Cosigner names (optional: a wallet registered without them, or by an older build, has none).
            var names: [MultisigWallet.CosignerName] = []
            if let list = entry["cosigners"] {
                guard let items = list.arrayValue, !items.isEmpty else {
                    throw .corrupt(reason: "multisig entry \(n + 1): cosigners is not a non-empty list")
                }
                for pair in items {
                    guard let fingerprint = pair["fingerprint"]?.stringValue, let name = pair["name"]?.stringValue
                    else { throw .corrupt(reason: "multisig entry \(n + 1): a cosigner lacks a fingerprint or name") }
                    do { names.append(try MultisigWallet.CosignerName(fingerprint: fingerprint, name: name)) } catch {
                        throw .corrupt(reason: "multisig entry \(n + 1): \(error)")
                    }
                }
            }
            do { wallets.append(try MultisigWallet(name: name, descriptor: descriptor, cosignerNames: names)) } catch {
                throw .corrupt(reason: "multisig entry \(n + 1): \(error)")
            }
        }
        var tokens: [EthereumToken] = []
        if let list = root["eth_tokens"] {
            guard let items = list.arrayValue, !items.isEmpty else {
                throw .corrupt(reason: "eth_tokens is not a non-empty list")
            }
            for (n, item) in items.enumerated() {
                guard case .number(let chainText)? = item["chain_id"], let chainID = UInt64(chainText),
                    let addressText = item["address"]?.stringValue,
                    let address = try? EthereumAddress(string: addressText),
                    let symbol = item["symbol"]?.stringValue, EthereumToken.isValidSymbol(symbol),
                    let decimals = item["decimals"]?.intValue,
                    (0...Int(EthereumToken.maximumDecimals)).contains(decimals)
                else { throw .corrupt(reason: "eth_tokens entry \(n + 1) is malformed") }
                tokens.append(
                    EthereumToken(chainID: chainID, address: address, symbol: symbol, decimals: UInt8(decimals)))
            }
        }
        var clearSigning: [String] = []
        if let list = root["clear_signing"] {
            guard let items = list.arrayValue, !items.isEmpty else {
                throw .corrupt(reason: "clear_signing is not a non-empty list")
            }
            for (n, item) in items.enumerated() {
                guard let text = item.stringValue, !text.isEmpty else {
                    throw .corrupt(reason: "clear_signing entry \(n + 1) is not a descriptor text")
                }
                clearSigning.append(text)
            }
        }
        var auditHead: AuditHead?
        if version >= 2 {
            guard let audit = root["audit"], case .object = audit else { throw .corrupt(reason: "audit is missing") }
            let count = try Self.integer(audit, "entries", in: "audit")
            guard count >= 0 else { throw .corrupt(reason: "audit.entries is negative") }
            auditHead = AuditHead(count: count, hash: try Self.hex(audit, "head", length: 32, in: "audit"))
        } else if root["audit"] != nil {
            throw .corrupt(reason: "a version 1 vault holds an audit head")
        }
        guard let cipher = root["cipher"], case .object = cipher else { throw .corrupt(reason: "cipher is missing") }
        guard cipher["algorithm"]?.stringValue == VaultHeader.cipherName else {
            throw .corrupt(reason: "cipher algorithm is not \(VaultHeader.cipherName)")
        }
        self.nonce = try Self.hex(cipher, "nonce", length: PasswordSeal.nonceLength, in: "cipher")
        guard let sealedText = cipher["ciphertext"]?.stringValue,
            let sealed = try? Base64.decode(sealedText, requirePadding: true),
            sealed.count > PasswordSeal.tagLength
        else { throw .corrupt(reason: "cipher.ciphertext is missing, not base64 or too short") }
        self.ciphertext = Array(sealed)
        self.header = VaultHeader(
            version: version, network: network, masterFingerprint: fingerprint,
            kdf: Argon2Parameters(memoryBytes: memoryKiB * 1024, iterations: passes), salt: salt, keyCheck: keyCheck,
            passphraseStored: passphraseStored, multisigWallets: wallets, auditHead: auditHead)
        self.header.ethereumTokens = tokens
        self.header.clearSigningDescriptors = clearSigning
    }

    private static func string(_ object: JSONValue, _ key: String, in parent: String? = nil) throws(VaultError)
        -> String
    {
        guard let value = object[key]?.stringValue else {
            throw .corrupt(reason: "\(parent.map { "\($0)." } ?? "")\(key) is missing or not a string")
        }
        return value
    }

    private static func integer(_ object: JSONValue, _ key: String, in parent: String? = nil) throws(VaultError)
        -> Int
    {
        guard let value = object[key]?.intValue else {
            throw .corrupt(reason: "\(parent.map { "\($0)." } ?? "")\(key) is missing or not an integer")
        }
        return value
    }

    private static func hex(
        _ object: JSONValue, _ key: String, length: Int, in parent: String? = nil
    ) throws(VaultError) -> [UInt8] {
        let text = try string(object, key, in: parent)
        guard let bytes = try? [UInt8](hex: text), bytes.count == length else {
            throw .corrupt(reason: "\(parent.map { "\($0)." } ?? "")\(key) is not \(length) bytes of hex")
        }
        return bytes
    }
}
