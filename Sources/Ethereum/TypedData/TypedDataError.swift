/// Errors from reading or encoding EIP-712 typed data.
public enum TypedDataError: Error, Equatable, Sendable {
    /// The JSON text is malformed (byte offset of the problem).
    case invalidJSON(offset: Int)
    /// A required member of the `eth_signTypedData_v4` object is missing or has the wrong JSON type (which).
    case missingMember(String)
    /// A type is used that is neither a struct in `types` nor an atomic/dynamic Solidity type (name).
    case unknownType(String)
    /// A struct field declaration is malformed (struct, why).
    case invalidTypeDeclaration(String, String)
    /// A value does not fit its declared type (path to the value, type, why).
    case invalidValue(path: String, type: String, reason: String)
    /// A field of a struct is missing from the value (path).
    case missingField(path: String)
    /// Struct or array nesting is deeper than allowed.
    case tooDeep
}
