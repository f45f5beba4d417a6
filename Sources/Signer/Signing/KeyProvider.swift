import Bitcoin
import BitcoinCrypto

#if canImport(Glibc)
import Glibc
#endif

/// What a signer asks a key provider for: the private key behind a public key the PSBT names.
public enum KeyRequest: Sendable, Hashable {
    /// The key at a BIP32 key origin that the PSBT claims for `publicKey` (ECDSA inputs).
    case bip32(publicKey: PublicKey, origin: KeyOrigin)
    /// The key at a BIP32 key origin that the PSBT claims for the x-only `key` (taproot inputs).
    case taprootBIP32(key: XOnlyPublicKey, origin: KeyOrigin)
    /// A key named only by its public key (a key in a script, without derivation information).
    case publicKey(PublicKey)
}

/// Answers key requests (docs/architecture.md rule R7: the signer never walks the wallet; it asks for the keys a PSBT names).
///
/// A provider must return a key only if its public key is the one requested: derivation hints in a PSBT are never
/// trusted on their own.
public protocol KeyProvider: Sendable {
    /// The private key for `request`, or nil when this provider does not hold it.
    func privateKey(for request: KeyRequest) throws -> PrivateKey?
    /// The taproot key-path pair of `key` (the key this provider gave for `origin`) tweaked with `merkleRoot`.
    func keyPathPair(_ key: PrivateKey, at origin: KeyOrigin, merkleRoot: [UInt8]?) throws -> TaprootKeyPair
}

extension KeyProvider {
    public func keyPathPair(_ key: PrivateKey, at origin: KeyOrigin, merkleRoot: [UInt8]?) throws -> TaprootKeyPair {
        try TaprootKeyPair(internalKey: key, merkleRoot: merkleRoot)
    }
}

/// Keys derived from one BIP32 master key (a seed), answering requests whose origin starts at its fingerprint.
///
/// Account-level keys (the hardened prefix of a path) and the parents of requested keys (the branches) are derived
/// once and cached, so signing many inputs of one account costs one normal derivation per input; the keys and
/// taproot key-path pairs derived are kept too, so the review's ownership proof and the signer share them.
public final class SeedKeyProvider: KeyProvider, @unchecked Sendable {
    private let master: ExtendedPrivateKey
    private var accounts: [DerivationPath: ExtendedPrivateKey] = [:]
    private var keys: [DerivationPath: ExtendedPrivateKey] = [:]
    private var pairs: [DerivationPath: TaprootKeyPair] = [:]
    private let lock = NSLockLike()

    /// The master fingerprint requests must name.
    public var fingerprint: Fingerprint { master.fingerprint }

    /// A provider for the keys under `master`.
    public init(master: ExtendedPrivateKey) { self.master = master }

    /// A provider for the keys of `seed` (BIP32 master key generation).
    public convenience init(seed: SecretBytes, network: Network) throws {
        self.init(master: try ExtendedPrivateKey(seed: seed, network: network))
    }

    public func privateKey(for request: KeyRequest) throws -> PrivateKey? {
        switch request {
        case .bip32(let publicKey, let origin):
            guard let key = try derive(origin) else { return nil }
            return key.publicKey == publicKey ? key.privateKey : nil
        case .taprootBIP32(let xOnly, let origin):
            guard let key = try derive(origin) else { return nil }
            return key.publicKey.xOnly.key == xOnly ? key.privateKey : nil
        case .publicKey:
            return nil
        }
    }

    /// The key-path pair; one the review made (`keep`) for `origin` without a script tree is taken, not made again.
    public func keyPathPair(_ key: PrivateKey, at origin: KeyOrigin, merkleRoot: [UInt8]?) throws -> TaprootKeyPair {
        try keyPathPair(key, at: origin, merkleRoot: merkleRoot, keep: false)
    }

    func keyPathPair(_ key: PrivateKey, at origin: KeyOrigin, merkleRoot: [UInt8]?, keep: Bool) throws
        -> TaprootKeyPair
    {
        let mine = origin.fingerprint == master.fingerprint && merkleRoot == nil
        if mine, let pair = lock.withLock({ pairs.isEmpty ? nil : pairs[origin.path] }) { return pair }
        let pair = try TaprootKeyPair(internalKey: key, merkleRoot: merkleRoot)
        if mine, keep { lock.withLock { pairs[origin.path] = pair } }
        return pair
    }

    /// The extended key at `origin`, or nil when the origin is not under this master.
    ///
    /// The parent of the requested key is cached too (the account's receive or change branch), so a PSBT spending
    /// many coins of one account costs one CKDpriv per input; with `keep` (the review's proof) the key too, so that
    /// the signer's request for it costs none.
    func derive(_ origin: KeyOrigin, keep: Bool = false) throws -> ExtendedPrivateKey? {
        guard origin.fingerprint == master.fingerprint else { return nil }
        if let key = lock.withLock({ keys.isEmpty ? nil : keys[origin.path] }) { return key }
        guard let key = try deriveUncached(origin.path) else { return nil }
        if keep { lock.withLock { keys[origin.path] = key } }
        return key
    }

    private func deriveUncached(_ path: DerivationPath) throws -> ExtendedPrivateKey? {
        let components = path.components
        guard let last = components.last else { return master }
        let parent = try DerivationPath(Array(components.dropLast()))
        if let cached = lock.withLock({ accounts[parent] }) { return try cached.deriveChild(last) }
        let split = (parent.components.lastIndex(where: \.isHardened).map { $0 + 1 }) ?? 0
        let prefix = try DerivationPath(Array(parent.components[..<split]))
        let account: ExtendedPrivateKey
        if let cached = lock.withLock({ accounts[prefix] }) {
            account = cached
        } else {
            account = try master.derive(prefix)
            lock.withLock { accounts[prefix] = account }
        }
        var key = account
        for component in parent.components[split...] { key = try key.deriveChild(component) }
        let branch = key
        lock.withLock { accounts[parent] = branch }
        return try branch.deriveChild(last)
    }
}

/// Loose private keys (for example WIF keys), looked up by their public key.
public struct StaticKeyProvider: KeyProvider {
    private let byCompressed: [[UInt8]: PrivateKey]
    private let byXOnly: [[UInt8]: PrivateKey]

    /// A provider holding `keys`.
    public init(keys: [PrivateKey]) {
        var compressed: [[UInt8]: PrivateKey] = [:]
        var xOnly: [[UInt8]: PrivateKey] = [:]
        for key in keys {
            let publicKey = key.publicKey
            compressed[publicKey.compressed] = key
            xOnly[publicKey.xOnly.key.bytes] = key
        }
        self.byCompressed = compressed
        self.byXOnly = xOnly
    }

    public func privateKey(for request: KeyRequest) throws -> PrivateKey? {
        switch request {
        case .bip32(let publicKey, _), .publicKey(let publicKey): byCompressed[publicKey.compressed]
        case .taprootBIP32(let key, _): byXOnly[key.bytes]
        }
    }
}

/// A small mutex (Foundation-free, so the signer's core stays minimal).
final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    func withLock<R>(_ body: () throws -> R) rethrows -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
