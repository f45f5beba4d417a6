import AirgapTransport
import Bitcoin
import BitcoinCrypto
import Descriptors
import Watcher

/// `import IN`: an account read from a file, stdin or QR codes becomes a new watch-only wallet.
///
/// Accepted: descriptor text, a signer's JSON export, an extended key with origin, a BSMS 1.0 descriptor record
/// (its first address checked), or the descriptor of a `ur:crypto-account`, `ur:crypto-output`,
/// `ur:output-descriptor` or `ur:account-descriptor`.
public enum WalletImport {
    /// The payload kinds `import` reads.
    public static let kinds: Set<PayloadKind> = [
        .descriptor, .cryptoAccount, .cryptoOutput, .outputDescriptor, .accountDescriptor, .json, .text,
    ]

    /// What the user asked for besides the account.
    public struct Options: Sendable, Equatable {
        /// The new wallet's name (default: the export section, else `default`).
        public var name: String?
        /// The network (default: from the keys).
        public var network: Network?
        public var gapLimit: Int
        /// The export section: bip84, bip86, bip49, bip44.
        public var section: String?
        /// A block height or a day `YYYY-MM-DD` (UTC).
        public var birthday: String?

        public init(
            name: String? = nil, network: Network? = nil, gapLimit: Int = 20, section: String? = nil,
            birthday: String? = nil
        ) {
            self.name = name
            self.network = network
            self.gapLimit = gapLimit
            self.section = section
            self.birthday = birthday
        }
    }

    /// The wallet imported.
    ///
    /// `--json` is this report's encoding; `lines` its text.
    public struct Report: Encodable, Sendable, Equatable {
        public var name: String
        public var network: Network
        public var gapLimit: Int
        /// What the account was read from (a descriptor, an export section …).
        public var source: String
        public var receiveDescriptor: String
        public var changeDescriptor: String?
        public var firstAddress: String
        public var birthday: WalletBirthday?
        /// Test keys that fit every test network: the wallet takes the network of the node it is first synced from.
        public var networkFromNode: Bool
        /// A BSMS record's first address, checked against the descriptor's.
        public var bsmsFirstAddress: String?

        enum CodingKeys: String, CodingKey {
            case name, network, gapLimit, source, receiveDescriptor, changeDescriptor, firstAddress, birthday
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(network.rawValue, forKey: .network)
            try container.encode(gapLimit, forKey: .gapLimit)
            try container.encode(source, forKey: .source)
            try container.encode(receiveDescriptor, forKey: .receiveDescriptor)
            try container.encode(changeDescriptor, forKey: .changeDescriptor)
            try container.encode(firstAddress, forKey: .firstAddress)
            try container.encode(birthday?.description, forKey: .birthday)
        }

        /// The report as text (the BSMS check is the caller's to print on stderr).
        public var lines: [String] {
            var lines = ["imported wallet '\(name)' (\(network.rawValue), \(source))"]
            if networkFromNode {
                lines.append(
                    "network: its test keys fit testnet, signet and regtest alike; the wallet takes the network "
                        + "of the node it is first synced from (or name one with --network)")
            }
            lines.append("receive: \(receiveDescriptor)")
            if let changeDescriptor { lines.append("change:  \(changeDescriptor)") }
            lines.append("first address: \(firstAddress)")
            if let birthday { lines.append("birthday: \(birthday)") }
            return lines
        }
    }

    /// Imports the account in `payload` as a new wallet of the store `openStore` gives (opened only once the account
    /// has been read and checked, so that bad input leaves no data directory behind).
    ///
    /// - Throws: `WalletImportError` (a bad `--birthday` or `--section`, a payload that is no account),
    ///   `ImportError`, `BSMSError` (a record whose first address is not the descriptor's), `StoreError`.
    public static func run(payload: Payload, options: Options, openStore: () throws -> Store) throws -> Report {
        let born = try options.birthday.map { text throws(WalletImportError) in
            guard let parsed = WalletBirthday(string: text) else { throw .birthday(text) }
            return parsed
        }
        var text = try accountText(of: payload, section: options.section)
        // A BSMS 1.0 descriptor record (BIP129 round 2): its descriptor, once its first address is checked.
        let bsms = text.hasPrefix("BSMS 1.0") ? try BSMSDescriptorRecord(text: text) : nil
        if let bsms { text = try bsms.descriptor().description }
        let account = try AccountImport.parse(text, network: options.network, section: options.section)
        let bsmsFirst = try bsms?.checkedFirstAddress(network: account.network)
        let store = try openStore()
        var descriptors: [Keychain: String] = [.external: account.external.description]
        if let change = account.change { descriptors[.internal] = change.description }
        let record = try store.createWallet(
            WalletRecord(
                name: options.name ?? account.suggestedName ?? "default", network: account.network,
                gapLimit: options.gapLimit, descriptors: descriptors))
        if let born { try store.setBirthday(born, walletName: record.name) }
        try store.setNetworkSource(account.networkSource, walletName: record.name)
        let first = try Account(record: record).derive(.external, index: 0)
        return Report(
            name: record.name, network: record.network, gapLimit: record.gapLimit, source: account.source,
            receiveDescriptor: account.external.description, changeDescriptor: account.change?.description,
            firstAddress: first.address, birthday: born, networkFromNode: account.networkSource == .keys,
            bsmsFirstAddress: bsmsFirst?.description)
    }

    /// The account text of `payload`; `section` picks an account's script (bip84, bip86, bip49, bip44).
    public static func accountText(of payload: Payload, section: String?) throws(WalletImportError) -> String {
        switch payload {
        case .descriptor(let text), .json(let text), .text(let text): return text
        case .cryptoOutput(let output): return try descriptor(output)
        case .outputDescriptor(let output): return try descriptor(output)
        case .cryptoAccount(let account):
            return try pick(try account.outputs.map(descriptor), section: section)
        case .accountDescriptor(let account):
            return try pick(try account.descriptors.map(descriptor), section: section)
        default:
            throw .notAnAccount(payload.kind.rawValue)
        }
    }

    /// The script prefix of each export section, in the default order.
    static let sections: [(String, String)] = [
        ("bip84", "wpkh("), ("bip86", "tr("), ("bip49", "sh(wpkh("), ("bip44", "pkh("),
    ]

    /// The descriptor of `section`, else the first of the default order, else the first.
    static func pick(_ descriptors: [String], section: String?) throws(WalletImportError) -> String {
        if let section {
            guard let prefix = sections.first(where: { $0.0 == section })?.1 else { throw .unknownSection(section) }
            guard let found = descriptors.first(where: { $0.hasPrefix(prefix) }) else { throw .noSection(section) }
            return found
        }
        for (_, prefix) in sections {
            if let found = descriptors.first(where: { $0.hasPrefix(prefix) }) { return found }
        }
        guard let first = descriptors.first else { throw .noDescriptor }
        return first
    }

    /// The descriptor text of a `ur:crypto-output`, its account keys as `[origin]xpub/<0;1>/*`.
    public static func descriptor(_ output: URCryptoOutput) throws(WalletImportError) -> String {
        var failure: WalletImportError?
        let text = output.descriptorText { key in render(key, failure: &failure) }
        if let failure { throw failure }
        return text
    }

    /// The descriptor text of a `ur:output-descriptor`, its account keys as `[origin]xpub/<0;1>/*`.
    public static func descriptor(_ output: UROutputDescriptor) throws(WalletImportError) -> String {
        var failure: WalletImportError?
        let text = output.descriptorText { key in render(key, failure: &failure) }
        if let failure { throw failure }
        return text
    }

    /// `[origin]xpub/<0;1>/*` for an account key (or its own children when it names them).
    static func render(_ key: URKey, failure: inout WalletImportError?) -> String {
        switch key {
        case .ec(let key):
            return key.data.hexString
        case .hd(let key):
            guard !key.isPrivate else {
                failure = .privateKey
                return ""
            }
            guard let fields = key.extendedKeyFields else {
                failure = .noChainCode
                return ""
            }
            let version: UInt32 = key.network == .testnet ? 0x0435_87CF : 0x0488_B21E
            var bytes = bigEndian(version) + [fields.depth] + bigEndian(fields.parentFingerprint.rawValue)
            bytes += bigEndian(fields.childNumber) + fields.chainCode + fields.keyData
            guard let xpub = try? ExtendedPublicKey(serialized: bytes) else {
                failure = .invalidKey
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

/// Why `import` refused its input before parsing an account.
public enum WalletImportError: Error, Equatable, Sendable, CustomStringConvertible, FailureClassifying {
    /// `--birthday` is neither a height nor a date.
    case birthday(String)
    /// `--section` names no known section.
    case unknownSection(String)
    /// The account has no descriptor of the section asked for.
    case noSection(String)
    /// The account holds no descriptor.
    case noDescriptor
    /// The payload (of this kind) is not an account.
    case notAnAccount(String)
    /// A QR code's key is private.
    case privateKey
    /// A QR code's account key has no chain code.
    case noChainCode
    /// A QR code's account key is not a valid extended public key.
    case invalidKey

    public var failureKind: FailureKind {
        switch self {
        case .birthday, .unknownSection: .usage
        default: .invalidInput
        }
    }

    public var description: String {
        switch self {
        case .birthday(let text): "--birthday '\(text)' is neither a block height nor a date YYYY-MM-DD (UTC, 2009 on)"
        case .unknownSection(let section): "unknown --section '\(section)': bip84, bip86, bip49 or bip44"
        case .noSection(let section): "the account has no \(section) descriptor"
        case .noDescriptor: "the account holds no descriptor"
        case .notAnAccount(let kind): "a \(kind) is not an account (give a descriptor or export)"
        case .privateKey: "the QR code holds a private key; import only public keys"
        case .noChainCode: "the account key has no chain code"
        case .invalidKey: "the account key is not a valid extended public key"
        }
    }
}
