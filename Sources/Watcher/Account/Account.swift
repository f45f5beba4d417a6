import Bitcoin
import Descriptors

/// A wallet's descriptors, ready to derive: the receive keychain and, usually, the change keychain.
public struct Account: Sendable {
    /// The receive descriptor.
    public let external: Descriptor
    /// The change descriptor, when the wallet has one.
    public let change: Descriptor?
    /// The network addresses are shown for.
    public let network: Network

    public init(external: Descriptor, change: Descriptor?, network: Network) {
        self.external = external
        self.change = change
        self.network = network
    }

    /// The account of a stored wallet.
    ///
    /// - Throws: `StoreError.corrupt` when a stored descriptor no longer parses.
    public init(record: WalletRecord) throws(StoreError) {
        guard let externalText = record.descriptors[.external] else {
            throw .corrupt("wallet \(record.name) has no descriptor")
        }
        do {
            external = try Descriptor(string: externalText)
            change = try record.descriptors[.internal].map { (text) throws(DescriptorError) in
                try Descriptor(string: text)
            }
        } catch {
            throw .corrupt("descriptor of wallet \(record.name): \(error)")
        }
        network = record.network
    }

    /// The receive and (when there is one) change descriptors.
    public var descriptors: [Descriptor] { [external] + (change.map { [$0] } ?? []) }

    /// The keychains this account has.
    public var keychains: [Keychain] { change == nil ? [.external] : [.external, .internal] }

    /// The descriptor of a keychain (change falls back to receive when there is no change descriptor).
    public func descriptor(_ keychain: Keychain) -> Descriptor {
        keychain == .internal ? (change ?? external) : external
    }

    /// Whether the keychain derives more than one address.
    public func isRanged(_ keychain: Keychain) -> Bool { descriptor(keychain).isRanged }

    /// The address record at `index` of `keychain`.
    ///
    /// - Throws: `DescriptorError` (an index beyond 2^31, a script without an address form).
    public func derive(_ keychain: Keychain, index: Int) throws(DescriptorError) -> AddressRecord {
        guard index >= 0, index < Int(ChildNumber.hardenedOffset) else {
            throw .indexOutOfRange(UInt32(clamping: index))
        }
        let descriptor = descriptor(keychain)
        let script = try descriptor.scriptPubKey(at: UInt32(index))
        guard let address = try? Address(scriptPubKey: script, network: network) else { throw .noAddress }
        return AddressRecord(keychain: keychain, index: index, script: script, address: address.description)
    }
}
