/// An EIP-4527 `eth-sign-request` (CBOR tag 401): what a watch-only wallet asks an offline signer to sign.
///
/// - SeeAlso: https://eips.ethereum.org/EIPS/eip-4527
public struct UREthSignRequest: Equatable, Sendable {
    /// What `signData` holds (key 3).
    public enum DataType: UInt64, Sendable {
        /// An unsigned legacy transaction, RLP.
        case legacyTransaction = 1
        /// EIP-712 typed data, the UTF-8 JSON of `eth_signTypedData_v4`.
        case typedData = 2
        /// An EIP-191 personal message, the raw bytes.
        case personalMessage = 3
        /// An unsigned EIP-2718 typed transaction (type byte then RLP).
        case typedTransaction = 4
    }

    /// The request id (key 1, a UUID tagged 37): 16 bytes.
    public var requestID: [UInt8]?
    /// The data to sign (key 2).
    public var signData: [UInt8]
    /// Its type (key 3).
    public var dataType: DataType
    /// The chain id (key 4).
    public var chainID: UInt64?
    /// The key's path (key 5, crypto-keypath); empty components for a key imported by address.
    public var derivationPath: URKeypath
    /// The signing key's address, for verification (key 6, 20 bytes).
    public var address: [UInt8]?
    /// The requesting wallet's name (key 7).
    public var origin: String?

    /// A request from its fields.
    public init(
        requestID: [UInt8]?, signData: [UInt8], dataType: DataType, chainID: UInt64?, derivationPath: URKeypath,
        address: [UInt8]? = nil, origin: String? = nil
    ) {
        self.requestID = requestID
        self.signData = signData
        self.dataType = dataType
        self.chainID = chainID
        self.derivationPath = derivationPath
        self.address = address
        self.origin = origin
    }

    /// The CBOR map (keys in ascending order, as Keystone's encoder writes them).
    public func serialized() -> [UInt8] {
        CBOR.intMap([
            (1, requestID.map { .tagged(URTag.uuid, .bytes($0)) }),
            (2, .bytes(signData)),
            (3, .unsigned(dataType.rawValue)),
            (4, chainID.map { .unsigned($0) }),
            (5, derivationPath.cbor(tags: .v1)),
            (6, address.map { .bytes($0) }),
            (7, origin.map { .text($0) }),
        ]).serialized()
    }

    /// Decodes the CBOR of a `ur:eth-sign-request`.
    ///
    /// - Throws: `URError.cbor` or `.invalidRegistryItem` naming the field that is wrong.
    public init(serialized bytes: [UInt8]) throws(URError) {
        let r = RegistryReader(type: "eth-sign-request")
        let item: CBOR
        do { item = try CBOR(serialized: bytes) } catch { throw .cbor(error) }
        let m = try r.map(item, context: "eth-sign-request")
        requestID = try m[1].map { (v: CBOR) throws(URError) in try Self.uuid(v, reader: r) }
        guard let data = try r.bytes(m[2], context: "sign-data") else { throw r.fail("missing sign-data") }
        signData = data
        guard case .unsigned(let type)? = m[3], let dataType = DataType(rawValue: type) else {
            throw r.fail("data-type is not 1, 2, 3 or 4")
        }
        self.dataType = dataType
        if let chain = m[4] {
            guard case .unsigned(let id) = chain else { throw r.fail("chain-id is not a non-negative integer") }
            chainID = id
        } else {
            chainID = nil
        }
        guard let path = m[5] else { throw r.fail("missing derivation-path") }
        derivationPath = try URKeypath(cbor: path, reader: r)
        address = try r.bytes(m[6], context: "address")
        if let address, address.count != 20 { throw r.fail("address is not 20 bytes") }
        origin = try r.text(m[7], context: "origin")
    }

    static func uuid(_ item: CBOR, reader r: RegistryReader) throws(URError) -> [UInt8] {
        guard let id = try r.bytes(r.untag(item, [URTag.uuid], context: "request-id"), context: "request-id"),
            id.count == 16
        else { throw r.fail("request-id is not a 16-byte UUID") }
        return id
    }
}
