/// An account as `crypto-account` carries it: the master fingerprint and one output descriptor per script type.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-015-account.md
public struct URCryptoAccount: Equatable, Sendable {
    /// Fingerprint of the master key.
    public var masterFingerprint: KeyFingerprint
    /// One output descriptor per script type.
    public var outputs: [URCryptoOutput]

    public init(masterFingerprint: KeyFingerprint, outputs: [URCryptoOutput]) {
        self.masterFingerprint = masterFingerprint
        self.outputs = outputs
    }

    /// The CBOR of the account, each output tagged 308.
    public func serialized() -> [UInt8] {
        CBOR.intMap([
            (1, .unsigned(UInt64(masterFingerprint.rawValue))),
            (2, .array(outputs.map { .tagged(URTag.cryptoOutput, $0.cbor()) })),
        ]).serialized()
    }

    /// Decodes the CBOR of a `ur:crypto-account`.
    ///
    /// - Throws: `URError.cbor` or `.invalidRegistryItem`.
    public init(serialized bytes: [UInt8]) throws(URError) {
        let r = RegistryReader(type: "crypto-account")
        let item: CBOR
        do { item = try CBOR(serialized: bytes) } catch { throw .cbor(error) }
        let m = try r.map(item, context: "account")
        guard let fingerprint = try r.uint32(m[1], context: "master-fingerprint") else {
            throw r.fail("missing master fingerprint")
        }
        guard case .array(let list)? = m[2] else { throw r.fail("missing output descriptor array") }
        var outputs: [URCryptoOutput] = []
        for output in list {
            outputs.append(
                try URCryptoOutput(cbor: r.untag(output, [URTag.cryptoOutput], context: "output"), reader: r))
        }
        masterFingerprint = KeyFingerprint(rawValue: fingerprint)
        self.outputs = outputs
    }
}
