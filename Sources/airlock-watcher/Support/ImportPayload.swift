import AirgapTransport
import Bitcoin
import CLISupport

/// Turns what `import IN` read (a file, stdin, or QR codes) into the text `AccountImport.parse` takes: descriptor text,
/// a signer's JSON export, an extended key with origin, or the descriptor of a `ur:crypto-account`, `ur:crypto-output`,
/// `ur:output-descriptor` or `ur:account-descriptor`.
enum ImportPayload {
    /// The accepted payload kinds.
    static let kinds: Set<PayloadKind> = [
        .descriptor, .cryptoAccount, .cryptoOutput, .outputDescriptor, .accountDescriptor, .json, .text,
    ]

    /// The account text of `payload`; `section` picks an account's script (bip84, bip86, bip49, bip44).
    static func text(of payload: Payload, section: String?) throws -> String {
        switch payload {
        case .descriptor(let text), .json(let text), .text(let text): return text
        case .cryptoOutput(let output): return try descriptor(output)
        case .outputDescriptor(let output): return try descriptor(output)
        case .cryptoAccount(let account):
            return try pick(try account.outputs.map(descriptor), section: section)
        case .accountDescriptor(let account):
            return try pick(try account.descriptors.map(descriptor), section: section)
        default:
            throw CLIError(.invalidInput, "a \(payload.kind.rawValue) is not an account (give a descriptor or export)")
        }
    }

    /// The script prefix of each export section, in the default order.
    static let sections: [(String, String)] = [
        ("bip84", "wpkh("), ("bip86", "tr("), ("bip49", "sh(wpkh("), ("bip44", "pkh("),
    ]

    static func pick(_ descriptors: [String], section: String?) throws -> String {
        if let section {
            guard let prefix = sections.first(where: { $0.0 == section })?.1 else {
                throw CLIError(.usage, "unknown --section '\(section)': bip84, bip86, bip49 or bip44")
            }
            guard let found = descriptors.first(where: { $0.hasPrefix(prefix) }) else {
                throw CLIError(.invalidInput, "the account has no \(section) descriptor")
            }
            return found
        }
        for (_, prefix) in sections {
            if let found = descriptors.first(where: { $0.hasPrefix(prefix) }) { return found }
        }
        guard let first = descriptors.first else { throw CLIError(.invalidInput, "the account holds no descriptor") }
        return first
    }

    static func descriptor(_ output: URCryptoOutput) throws -> String {
        var failure: CLIError?
        let text = output.descriptorText { key in render(key, failure: &failure) }
        if let failure { throw failure }
        return text
    }

    static func descriptor(_ output: UROutputDescriptor) throws -> String {
        var failure: CLIError?
        let text = output.descriptorText { key in render(key, failure: &failure) }
        if let failure { throw failure }
        return text
    }

    /// `[origin]xpub/<0;1>/*` for an account key (or its own children when it names them).
    static func render(_ key: URKey, failure: inout CLIError?) -> String {
        switch key {
        case .ec(let key):
            return key.data.hexString
        case .hd(let key):
            guard !key.isPrivate else {
                failure = CLIError(.invalidInput, "the QR code holds a private key; import only public keys")
                return ""
            }
            guard let fields = key.extendedKeyFields else {
                failure = CLIError(.invalidInput, "the account key has no chain code")
                return ""
            }
            let version: UInt32 = key.network == .testnet ? 0x0435_87CF : 0x0488_B21E
            var bytes = bigEndian(version) + [fields.depth] + bigEndian(fields.parentFingerprint.rawValue)
            bytes += bigEndian(fields.childNumber) + fields.chainCode + fields.keyData
            guard let xpub = try? ExtendedPublicKey(serialized: bytes) else {
                failure = CLIError(.invalidInput, "the account key is not a valid extended public key")
                return ""
            }
            var text = key.keyExpression(encodedKey: xpub.base58String)
            if key.children?.components.isEmpty ?? true { text += "/<0;1>/*" }
            return text
        }
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
