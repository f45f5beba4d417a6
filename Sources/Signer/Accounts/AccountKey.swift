import Bitcoin
import Descriptors

/// One account of the seed in public form: origin, xpub, the key expression with both branches, and the
/// descriptor (BIP380 with BIP389 `<0;1>/*`).
public struct AccountKey: Sendable {
    /// The script kind.
    public let script: AccountScript
    /// The account number.
    public let account: UInt32
    /// The network (decides the coin type and the tpub/xpub version).
    public let network: Network
    /// `[master fingerprint/path]`.
    public let origin: KeyOrigin
    /// The account xpub (standard xpub/tpub version).
    public let xpub: ExtendedPublicKey

    /// Derives the account of `script` and `account` from the master key.
    ///
    /// - Throws: `BIP32Error` (an account ≥ 2^31).
    public init(master: ExtendedPrivateKey, script: AccountScript, account: UInt32, network: Network)
        throws(BIP32Error)
    {
        let path = try script.path(network: network, account: account)
        let derived = try master.derive(path).extendedPublicKey
        self.script = script
        self.account = account
        self.network = network
        self.origin = KeyOrigin(fingerprint: master.fingerprint, path: path)
        self.xpub = try derived.withVersion(ExtendedKeyVersion(network: network, isPrivate: false))
    }

    /// `[fp/path]xpub` without children, as a multisig coordinator takes a cosigner key.
    public var keyOriginExpression: String { "\(origin)\(xpub.base58String)" }

    /// `[fp/path]xpub/<0;1>/*`.
    public var keyExpression: String { "\(keyOriginExpression)/<0;1>/*" }

    /// The xpub with SLIP-132 version bytes (zpub, vpub, Zpub, …), as Coldcard's `_pub` field.
    public var slip132String: String {
        let version = ExtendedKeyVersion(network: network, isPrivate: false, scriptHint: script.slip132Hint)
        return (try? xpub.withVersion(version).base58String) ?? xpub.base58String
    }

    /// The account descriptor with checksum; nil for the multisig cosigner key (`wsh-multi`).
    public var descriptor: Descriptor? {
        guard let text = script.descriptorText(key: keyExpression) else { return nil }
        return try? Descriptor(string: text)
    }

    /// The address at `index` of the receive (or change) branch.
    ///
    /// - Throws: `AccountError.noSingleKeyAddress` for `wsh-multi`, `.derivation` for index ≥ 2^31.
    public func address(change: Bool, index: UInt32) throws(AccountError) -> Address {
        guard let descriptor else { throw .noSingleKeyAddress(script.rawValue) }
        do { return try descriptor.address(at: index, path: change ? 1 : 0, network: network) } catch {
            throw .derivation(String(describing: error))
        }
    }

    /// The key origin of the address at `index` (`[fp/84h/1h/0h/0/5]`).
    public func addressOrigin(change: Bool, index: UInt32) -> KeyOrigin? {
        guard let last = try? ChildNumber.normal(index), let branch = try? ChildNumber.normal(change ? 1 : 0) else {
            return nil
        }
        return try? origin.appending(branch).appending(last)
    }
}
