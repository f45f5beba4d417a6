import Bitcoin
import BitcoinCrypto

/// Turns key origins that name an *account* key into origins under this seed's master key.
///
/// A coordinator that knows an account only by its xpub — Electrum restored from a bare `vpub`, for example — has no
/// key origin, so its PSBTs name each key by the account key's own fingerprint and the path below it
/// (`[acct-fp]/0/5`) instead of `[master-fp/84h/1h/0h/0/5]`. When such a fingerprint is that of one of this seed's
/// standard accounts (BIP44/49/84/86 and BIP48 multisig, accounts 0 to `accountLimit − 1`), the origin is replaced by
/// the full one, but only if the key derived there is the public key the PSBT names. The review then re-derives
/// ownership and change as for any PSBT; derivation hints are still never trusted on their own.
public struct AccountOriginResolver: Sendable {
    /// How many account numbers of each script kind are tried.
    public static let accountLimit: UInt32 = 10

    private let master: ExtendedPrivateKey
    private let network: Network

    public init(master: ExtendedPrivateKey, network: Network) {
        self.master = master
        self.network = network
    }

    /// `psbt` with every resolvable account-key origin replaced, and how many were replaced.
    ///
    /// Nothing else changes.
    public func resolving(_ psbt: PSBT) -> (psbt: PSBT, resolved: Int) {
        let foreign = Set(allOrigins(psbt).filter(isCandidate).map(\.fingerprint))
        guard !foreign.isEmpty else { return (psbt, 0) }
        let accounts = accountKeys(matching: foreign)
        guard !accounts.isEmpty else { return (psbt, 0) }
        var result = psbt
        var count = 0
        func full(_ origin: KeyOrigin, matches: (ExtendedPublicKey) -> Bool) -> KeyOrigin? {
            guard isCandidate(origin), let account = accounts[origin.fingerprint],
                let child = try? account.xpub.derive(origin.path), matches(child),
                let path = try? DerivationPath(account.origin.path.components + origin.path.components)
            else { return nil }
            return KeyOrigin(fingerprint: master.fingerprint, path: path)
        }
        func resolve(
            _ derivations: [(publicKey: PublicKey, origin: KeyOrigin)],
            _ tapDerivations: [(key: XOnlyPublicKey, leafHashes: [[UInt8]], origin: KeyOrigin)],
            set: (PublicKey, KeyOrigin) -> Void, setTap: (XOnlyPublicKey, [[UInt8]], KeyOrigin) -> Void
        ) {
            for (key, origin) in derivations {
                guard let origin = full(origin, matches: { $0.publicKey == key }) else { continue }
                set(key, origin)
                count += 1
            }
            for (key, leaves, origin) in tapDerivations {
                guard let origin = full(origin, matches: { $0.publicKey.xOnly.key == key }) else { continue }
                setTap(key, leaves, origin)
                count += 1
            }
        }
        for (index, input) in psbt.inputs.enumerated() {
            resolve(
                input.bip32Derivations, input.tapBIP32Derivations,
                set: { result.addBIP32Derivation($0, origin: $1, input: index) },
                setTap: { result.addTapBIP32Derivation($0, leafHashes: $1, origin: $2, input: index) })
        }
        for (index, output) in psbt.outputs.enumerated() {
            resolve(
                output.bip32Derivations, output.tapBIP32Derivations,
                set: { result.addBIP32Derivation($0, origin: $1, output: index) },
                setTap: { result.addTapBIP32Derivation($0, leafHashes: $1, origin: $2, output: index) })
        }
        return (result, count)
    }

    /// An origin that is not under the master key and whose path has only unhardened steps below an account.
    private func isCandidate(_ origin: KeyOrigin) -> Bool {
        origin.fingerprint != master.fingerprint && !origin.path.components.isEmpty
            && origin.path.components.count <= 2 && !origin.path.components.contains(where: \.isHardened)
    }

    private func allOrigins(_ psbt: PSBT) -> [KeyOrigin] {
        psbt.inputs.flatMap { $0.bip32Derivations.map(\.origin) + $0.tapBIP32Derivations.map(\.origin) }
            + psbt.outputs.flatMap { $0.bip32Derivations.map(\.origin) + $0.tapBIP32Derivations.map(\.origin) }
    }

    /// This seed's standard account keys whose own fingerprint is one of `fingerprints`.
    private func accountKeys(matching fingerprints: Set<Fingerprint>) -> [Fingerprint: AccountKey] {
        var found: [Fingerprint: AccountKey] = [:]
        for script in AccountScript.allCases {
            for number in 0..<Self.accountLimit {
                guard let account = try? AccountKey(master: master, script: script, account: number, network: network)
                else { continue }
                let fingerprint = account.xpub.fingerprint
                if fingerprints.contains(fingerprint) { found[fingerprint] = account }
            }
        }
        return found
    }
}
