/// An account as the 2023 `account-descriptor` type carries it.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2023-019-account-descriptor.md
public struct URAccountDescriptor: Equatable, Sendable {
    /// Fingerprint of the master key.
    public var masterFingerprint: KeyFingerprint
    /// The account's output descriptors.
    public var descriptors: [UROutputDescriptor]

    public init(masterFingerprint: KeyFingerprint, descriptors: [UROutputDescriptor]) {
        self.masterFingerprint = masterFingerprint
        self.descriptors = descriptors
    }

    /// The CBOR, each descriptor tagged 40308.
    public func serialized() -> [UInt8] {
        CBOR.intMap([
            (1, .unsigned(UInt64(masterFingerprint.rawValue))),
            (2, .array(descriptors.map { .tagged(URTag.outputDescriptor, $0.cbor()) })),
        ]).serialized()
    }

    /// Decodes the CBOR of a `ur:account-descriptor`.
    ///
    /// - Throws: `URError.cbor` or `.invalidRegistryItem`.
    public init(serialized bytes: [UInt8]) throws(URError) {
        let r = RegistryReader(type: "account-descriptor")
        let item: CBOR
        do { item = try CBOR(serialized: bytes) } catch { throw .cbor(error) }
        let m = try r.map(item, context: "account-descriptor")
        guard let fingerprint = try r.uint32(m[1], context: "master-fingerprint") else {
            throw r.fail("missing master fingerprint")
        }
        guard case .array(let list)? = m[2] else { throw r.fail("missing descriptor array") }
        var descriptors: [UROutputDescriptor] = []
        for d in list {
            descriptors.append(
                try UROutputDescriptor(cbor: r.untag(d, [URTag.outputDescriptor], context: "descriptor"), reader: r))
        }
        masterFingerprint = KeyFingerprint(rawValue: fingerprint)
        self.descriptors = descriptors
    }
}
