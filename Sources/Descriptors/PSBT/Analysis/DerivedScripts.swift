public import Bitcoin
public import BitcoinCrypto

/// Scripts of single-key account descriptors at given children, built from keys a signer derived itself (its private
/// derivation from the seed that the descriptors' xpubs come from), so that `PSBTAnalysis`'s ownership proof takes
/// them instead of deriving each child key a second time from the account xpub (issue 33).
///
/// The proof stays a proof: the script is rebuilt from the key, never taken from the PSBT, and compared with the
/// input's or output's scriptPubKey as before. The caller vouches that `key` is the descriptor's key at that child
/// (true when the descriptor's xpub was derived from the same master key at the origin it names); `record` checks that
/// the origin is the descriptor's at that child and that the descriptor is one of the four single-key forms.
public struct DerivedScripts: Sendable {
    struct Child: Hashable {
        let account: Int
        let branch: Int
        let index: UInt32
    }

    var scripts: [Child: Script] = [:]

    /// None: every child is derived from the descriptors.
    public init() {}

    /// The scripts at the children that `psbt`'s unfinalized inputs claim of `accounts`.
    ///
    /// `accounts` are single-key descriptors whose key origins are `[fingerprint/paths[i]]`, with `<0;1>/*` after them.
    /// `key(origin, isTaproot)` gives the public key derived at `origin` and, for a `tr` account, the output key (nil:
    /// that child is derived from the descriptor).
    public init(
        psbt: PSBT, accounts: [Descriptor], paths: [DerivationPath], fingerprint: Fingerprint,
        key: (KeyOrigin, Bool) -> (PublicKey, XOnlyPublicKey?)?
    ) {
        for input in psbt.inputs where !input.isFinalized {
            let claimed = input.bip32Derivations.map(\.origin) + input.tapBIP32Derivations.map(\.origin)
            for origin in claimed where origin.fingerprint == fingerprint && origin.path.components.count == 5 {
                let components = origin.path.components
                guard !components[3].isHardened, !components[4].isHardened,
                    let account = paths.firstIndex(where: { $0.components == Array(components[..<3]) }),
                    accounts.indices.contains(account)
                else { continue }
                let isTaproot: Bool = if case .tr = accounts[account].expression { true } else { false }
                guard let (publicKey, outputKey) = key(origin, isTaproot) else { continue }
                record(
                    account: account, descriptor: accounts[account], branch: Int(components[3].index),
                    index: components[4].index, origin: origin, key: publicKey, outputKey: outputKey)
            }
        }
    }

    /// How many children are known.
    public var count: Int { scripts.count }

    /// Records the script of `descriptor` (account number `account` of the review) at child `index` of its multipath
    /// branch `branch`, from `key`, the public key derived at `origin`, and for `tr(KEY)` the output key `outputKey`
    /// (`key` tweaked with no script tree, BIP341).
    ///
    /// - Returns: false, recording nothing, unless the descriptor is `pkh(KEY)`, `wpkh(KEY)`, `sh(wpkh(KEY))` or
    ///   `tr(KEY)` without a tree of an extended key, `origin` is its key's origin at that child, and a `tr` output
    ///   key is given.
    @discardableResult
    public mutating func record(
        account: Int, descriptor: Descriptor, branch: Int, index: UInt32, origin: KeyOrigin, key: PublicKey,
        outputKey: XOnlyPublicKey? = nil
    ) -> Bool {
        let child = Child(account: account, branch: branch, index: index)
        let hash = PubkeyHash(unchecked: Hash160.hash(key.compressed))
        let script: Script
        let descriptorKey: DescriptorKey
        switch descriptor.expression {
        case .pkh(let one):
            (script, descriptorKey) = (.p2pkh(hash), one)
        case .wpkh(let one):
            (script, descriptorKey) = (.p2wpkh(hash), one)
        case .sh(.wpkh(let one)):
            (script, descriptorKey) = (Script.p2wpkh(hash).p2shWrapped, one)
        case .tr(let one, nil):
            guard let outputKey else { return false }
            (script, descriptorKey) = (.p2tr(outputKey: outputKey), one)
        default:
            return false
        }
        guard case .extended = descriptorKey.material, (0..<descriptor.multipathCount).contains(branch),
            descriptorKey.keyOrigin(at: index, path: branch) == origin
        else { return false }
        scripts[child] = script
        return true
    }

    /// The script recorded for child `index` of branch `branch` of account `account`, if any.
    func script(account: Int, branch: Int, index: UInt32) -> Script? {
        scripts.isEmpty ? nil : scripts[Child(account: account, branch: branch, index: index)]
    }
}
