/// An EIP-4527 `eth-signature` (CBOR tag 402): the offline signer's answer, r ‖ s ‖ v.
///
/// - SeeAlso: https://eips.ethereum.org/EIPS/eip-4527
public struct UREthSignature: Equatable, Sendable {
    /// The request id it answers (key 1, a UUID tagged 37).
    public var requestID: [UInt8]?
    /// r ‖ s ‖ v (key 2): 65 bytes, or more when a large chain id's EIP-155 `v` needs more than one byte.
    public var signature: [UInt8]
    /// The signer's name (key 3).
    public var origin: String?

    /// A signature from its fields.
    public init(requestID: [UInt8]?, signature: [UInt8], origin: String? = nil) {
        self.requestID = requestID
        self.signature = signature
        self.origin = origin
    }

    /// The CBOR map.
    public func serialized() -> [UInt8] {
        CBOR.intMap([
            (1, requestID.map { .tagged(URTag.uuid, .bytes($0)) }),
            (2, .bytes(signature)),
            (3, origin.map { .text($0) }),
        ]).serialized()
    }

    /// Decodes the CBOR of a `ur:eth-signature`.
    ///
    /// - Throws: `URError.cbor` or `.invalidRegistryItem`.
    public init(serialized bytes: [UInt8]) throws(URError) {
        let r = RegistryReader(type: "eth-signature")
        let item: CBOR
        do { item = try CBOR(serialized: bytes) } catch { throw .cbor(error) }
        let m = try r.map(item, context: "eth-signature")
        requestID = try m[1].map { (v: CBOR) throws(URError) in try UREthSignRequest.uuid(v, reader: r) }
        guard let signature = try r.bytes(m[2], context: "signature"), (65...96).contains(signature.count) else {
            throw r.fail("signature is not r ‖ s ‖ v (65 or more bytes)")
        }
        self.signature = signature
        origin = try r.text(m[3], context: "origin")
    }
}
