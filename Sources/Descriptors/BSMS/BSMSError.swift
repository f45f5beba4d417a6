import Bitcoin

/// Errors reading or checking BSMS (BIP129) records.
public enum BSMSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The token is not `00`, 8 or 16 bytes of hex.
    case invalidToken(String)
    /// The record is not `BSMS 1.0` and the lines the BIP lists.
    case malformedRecord(String)
    /// An encrypted record whose MAC does not match (wrong token or altered data).
    case macMismatch
    /// The descriptor does not parse, or its template and restrictions do not fit.
    case invalidDescriptor(String)
    /// The first address in the record is not the descriptor's.
    case addressMismatch(record: String, computed: String)
    /// The key record's signature does not verify for its key.
    case invalidSignature(String)

    public var description: String {
        switch self {
        case .invalidToken(let token): "the BSMS token must be 00, or 8 or 16 bytes of hex: \(token)"
        case .malformedRecord(let reason): "not a BSMS 1.0 record: \(reason)"
        case .macMismatch: "the encrypted BSMS record does not authenticate (wrong token, or altered)"
        case .invalidDescriptor(let reason): "the BSMS descriptor: \(reason)"
        case .addressMismatch(let record, let computed):
            "the record's first address \(record) is not the descriptor's first address \(computed)"
        case .invalidSignature(let reason): "the key record's signature: \(reason)"
        }
    }
}
