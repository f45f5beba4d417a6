import AirgapTransport
import Bitcoin
import BitcoinCrypto
import Ethereum
import Foundation

/// An Ethereum account the watcher follows: a BIP44 account key `m/44'/60'/0'` from the signer's `ur:crypto-hdkey`
/// (addresses `0/i`), or one address alone (docs/architecture.md section 10).
public struct EthereumAccount: Sendable, Equatable {
    /// Where the addresses come from.
    public enum Source: Sendable, Equatable {
        /// The account key (base58 xpub at depth 3), the master fingerprint and the account path text.
        case hdKey(xpub: String, masterFingerprint: UInt32, accountPath: String)
        /// One address, no key: requests carry no derivation path.
        case address(EthereumAddress)
    }

    /// One address of the account with its last synced state.
    public struct Entry: Sendable, Equatable {
        public var index: Int
        public var address: EthereumAddress
        public var balance: Wei
        public var nonce: UInt64
    }

    public var id: Int64?
    public var name: String
    public var chainID: UInt64
    public var source: Source
    public var entries: [Entry]
    /// The last block synced (nil: never).
    public var syncedBlock: UInt64?

    /// The largest number of addresses followed per account.
    public static let maxAddresses = 100

    /// An account from a `crypto-hdkey` of `m/44'/60'/0'` with `count` addresses.
    ///
    /// - Throws: `EthereumWalletError.invalid` for a private key, a key without chain code or origin fingerprint, or
    ///   an origin other than `m/44'/60'/N'`.
    public init(name: String, chainID: UInt64, hdKey key: URHDKey, count: Int) throws(EthereumWalletError) {
        guard !key.isPrivate else { throw .invalid("the crypto-hdkey holds a private key; import only public keys") }
        guard let fields = key.extendedKeyFields else { throw .invalid("the crypto-hdkey has no chain code") }
        guard let origin = key.origin, let fingerprint = origin.sourceFingerprint else {
            throw .invalid("the crypto-hdkey has no origin with the master fingerprint")
        }
        let expected: [URKeypath.Component] = [.index(44, hardened: true), .index(60, hardened: true)]
        guard origin.components.count == 3, Array(origin.components.prefix(2)) == expected,
            case .index(let accountIndex, hardened: true) = origin.components[2]
        else {
            throw .invalid("the crypto-hdkey is not a BIP44 Ethereum account key (m/44'/60'/N')")
        }
        guard (1...Self.maxAddresses).contains(count) else {
            throw .invalid("--addresses must be 1 to \(Self.maxAddresses)")
        }
        func bigEndian(_ value: UInt32) -> [UInt8] {
            (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        let bytes =
            bigEndian(0x0488_B21E) + [fields.depth] + bigEndian(fields.parentFingerprint.rawValue)
            + bigEndian(fields.childNumber) + fields.chainCode + fields.keyData
        let xpub: ExtendedPublicKey
        do { xpub = try ExtendedPublicKey(serialized: bytes) } catch {
            throw .invalid("the crypto-hdkey is not a valid extended public key: \(error)")
        }
        self.init(
            id: nil, name: name, chainID: chainID,
            source: .hdKey(
                xpub: xpub.base58String, masterFingerprint: fingerprint.rawValue,
                accountPath: "m/44'/60'/\(accountIndex)'"),
            entries: [], syncedBlock: nil)
        entries = try Self.derive(xpub: xpub, count: count).enumerated().map {
            Entry(index: $0.offset, address: $0.element, balance: Wei(.zero), nonce: 0)
        }
    }

    /// An account of one address.
    public init(name: String, chainID: UInt64, address: EthereumAddress) {
        self.init(
            id: nil, name: name, chainID: chainID, source: .address(address),
            entries: [Entry(index: 0, address: address, balance: Wei(.zero), nonce: 0)], syncedBlock: nil)
    }

    init(id: Int64?, name: String, chainID: UInt64, source: Source, entries: [Entry], syncedBlock: UInt64?) {
        self.id = id
        self.name = name
        self.chainID = chainID
        self.source = source
        self.entries = entries
        self.syncedBlock = syncedBlock
    }

    /// Addresses `0/0` … `0/(count-1)` of an account key.
    static func derive(xpub: ExtendedPublicKey, count: Int) throws(EthereumWalletError) -> [EthereumAddress] {
        do {
            let external = try xpub.deriveChild(try .normal(0))
            var out: [EthereumAddress] = []
            for index in 0..<count {
                out.append(EthereumAddress(publicKey: try external.deriveChild(try .normal(UInt32(index))).publicKey))
            }
            return out
        } catch {
            throw .invalid("cannot derive the account's addresses: \(error)")
        }
    }

    /// Addresses of a stored account key.
    static func derive(xpubText: String, count: Int) throws(EthereumWalletError) -> [EthereumAddress] {
        let xpub: ExtendedPublicKey
        do { xpub = try ExtendedPublicKey(base58: xpubText) } catch { throw .invalid("stored account key: \(error)") }
        return try derive(xpub: xpub, count: count)
    }

    /// The entry of `address`, if it is one of the account's.
    public func entry(of address: EthereumAddress) -> Entry? { entries.first { $0.address == address } }

    /// The EIP-4527 derivation path of address `index` (empty for an address-only account).
    public func keypath(index: Int) -> URKeypath {
        guard case .hdKey(_, let fingerprint, let accountPath) = source,
            let account = UInt32(accountPath.split(separator: "/").last?.dropLast() ?? "")
        else { return URKeypath(components: []) }
        return URKeypath(
            components: [
                .index(44, hardened: true), .index(60, hardened: true), .index(account, hardened: true),
                .index(0, hardened: false), .index(UInt32(index), hardened: false),
            ], sourceFingerprint: KeyFingerprint(rawValue: fingerprint), depth: 5)
    }

    /// The sum of the addresses' balances.
    public var totalBalance: Wei {
        var total = UInt256.zero
        for entry in entries { total = (try? total.adding(entry.balance.amount)) ?? .max }
        return Wei(total)
    }
}

/// An ERC-20 token an account follows.
public struct EthereumToken: Sendable, Equatable {
    public var contract: EthereumAddress
    public var symbol: String
    public var name: String
    public var decimals: Int
    /// Balance per address of the account (base units).
    public var balances: [EthereumAddress: UInt256]

    public init(
        contract: EthereumAddress, symbol: String, name: String, decimals: Int,
        balances: [EthereumAddress: UInt256] = [:]
    ) {
        self.contract = contract
        self.symbol = symbol
        self.name = name
        self.decimals = decimals
        self.balances = balances
    }

    /// The sum over the account's addresses.
    public var total: UInt256 {
        var total = UInt256.zero
        for value in balances.values { total = (try? total.adding(value)) ?? .max }
        return total
    }
}

extension EthereumToken {
    /// The token `text` names among `tokens`: its contract address, or its symbol (any case).
    ///
    /// - Throws: `EthereumWalletError.invalid` for a token the account does not follow (naming those it does) or a
    ///   symbol two followed tokens share (naming their contracts).
    public static func find(_ text: String, among tokens: [EthereumToken]) throws(EthereumWalletError)
        -> EthereumToken
    {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let contract = try? EthereumAddress(string: trimmed) {
            guard let known = tokens.first(where: { $0.contract == contract }) else {
                throw .invalid(
                    "the account follows no token \(contract): add it first (airlock-watcher token add \(contract))")
            }
            return known
        }
        let matches = tokens.filter { $0.symbol.lowercased() == trimmed.lowercased() }
        if matches.count == 1 { return matches[0] }
        if matches.count > 1 {
            throw .invalid(
                "several followed tokens are called \(DisplayText.clean(trimmed)): name one by its contract ("
                    + matches.map(\.contract.checksummed).joined(separator: ", ") + ")")
        }
        let followed =
            tokens.isEmpty
            ? "it follows none yet"
            : "it follows " + tokens.map { DisplayText.clean($0.symbol) }.joined(separator: ", ")
        throw .invalid(
            "the account follows no token '\(DisplayText.clean(trimmed))' (\(followed)): add it with airlock-watcher "
                + "token add CONTRACT, then --token SYMBOL or --token CONTRACT")
    }

    /// `amount` base units in this token's units with its symbol: `1.25 ATT`.
    public func format(_ amount: UInt256) -> String {
        "\(EthereumSpend.decimalString(amount, decimals: decimals)) \(DisplayText.clean(symbol))"
    }
}
