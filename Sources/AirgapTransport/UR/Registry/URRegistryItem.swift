/// A decoded UR of one of the registry types Airlock exchanges.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-006-urtypes.md
public enum URRegistryItem: Equatable, Sendable {
    /// `ur:bytes`: a CBOR byte string.
    case bytes([UInt8])
    /// `ur:psbt` or `ur:crypto-psbt`: a CBOR byte string holding the PSBT.
    case psbt([UInt8])
    /// `ur:crypto-output`.
    case cryptoOutput(URCryptoOutput)
    /// `ur:crypto-account`.
    case cryptoAccount(URCryptoAccount)
    /// `ur:output-descriptor`.
    case outputDescriptor(UROutputDescriptor)
    /// `ur:account-descriptor`.
    case accountDescriptor(URAccountDescriptor)
    /// `ur:crypto-hdkey`.
    case hdKey(URHDKey)
    /// `ur:eth-sign-request` (EIP-4527).
    case ethSignRequest(UREthSignRequest)
    /// `ur:eth-signature` (EIP-4527).
    case ethSignature(UREthSignature)

    /// The UR types this module decodes.
    public static let supportedTypes = [
        "bytes", "psbt", "crypto-psbt", "crypto-output", "crypto-account", "output-descriptor", "account-descriptor",
        "crypto-hdkey", "eth-sign-request", "eth-signature",
    ]

    /// Decodes `ur` according to its type.
    ///
    /// - Throws: `URError.unsupportedType`, `.cbor` or `.invalidRegistryItem`.
    public init(_ ur: UR) throws(URError) {
        switch ur.type {
        case "bytes", "psbt", "crypto-psbt":
            let item: CBOR
            do { item = try CBOR(serialized: ur.cbor) } catch { throw .cbor(error) }
            guard case .bytes(let bytes) = item else {
                throw .invalidRegistryItem(type: ur.type, reason: "not a CBOR byte string")
            }
            self = ur.type == "bytes" ? .bytes(bytes) : .psbt(bytes)
        case "crypto-output": self = .cryptoOutput(try URCryptoOutput(serialized: ur.cbor))
        case "crypto-account": self = .cryptoAccount(try URCryptoAccount(serialized: ur.cbor))
        case "output-descriptor": self = .outputDescriptor(try UROutputDescriptor(serialized: ur.cbor))
        case "account-descriptor": self = .accountDescriptor(try URAccountDescriptor(serialized: ur.cbor))
        case "crypto-hdkey": self = .hdKey(try URHDKey(serialized: ur.cbor))
        case "eth-sign-request": self = .ethSignRequest(try UREthSignRequest(serialized: ur.cbor))
        case "eth-signature": self = .ethSignature(try UREthSignature(serialized: ur.cbor))
        default: throw .unsupportedType(ur.type)
        }
    }

    /// Returns this item as a UR of `type` (`psbt` may be sent as `crypto-psbt`).
    ///
    /// - Throws: `URError.unexpectedType` when `type` does not fit the item.
    public func ur(type: String? = nil) throws(URError) -> UR {
        switch self {
        case .bytes(let b): return try UR(type: "bytes", cbor: CBOR.bytes(b).serialized())
        case .psbt(let b):
            let t = type ?? "psbt"
            guard t == "psbt" || t == "crypto-psbt" else {
                throw .unexpectedType(expected: ["psbt", "crypto-psbt"], actual: t)
            }
            return try UR(type: t, cbor: CBOR.bytes(b).serialized())
        case .cryptoOutput(let o): return try UR(type: "crypto-output", cbor: o.serialized())
        case .cryptoAccount(let a): return try UR(type: "crypto-account", cbor: a.serialized())
        case .outputDescriptor(let d): return try UR(type: "output-descriptor", cbor: d.serialized())
        case .accountDescriptor(let a): return try UR(type: "account-descriptor", cbor: a.serialized())
        case .hdKey(let k): return try UR(type: "crypto-hdkey", cbor: k.serialized())
        case .ethSignRequest(let q): return try UR(type: "eth-sign-request", cbor: q.serialized())
        case .ethSignature(let s): return try UR(type: "eth-signature", cbor: s.serialized())
        }
    }
}
