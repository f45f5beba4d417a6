/// Errors from reading or encoding EIP-712 typed data.
public enum TypedDataError: Error, Equatable, Sendable, CustomStringConvertible {
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
    /// The JSON names a member twice in one object (the name).
    case duplicateMember(String)
    /// A value holds a member its type does not declare (path to the value, the member's name).
    case undeclaredMember(path: String, name: String)
    /// The domain lacks a member `EIP712Domain` declares (name).
    case missingDomainMember(String)
    /// `EIP712Domain` declares a member EIP-712 does not define (name).
    case nonStandardDomainField(String)
    /// `primaryType` is not the one struct no other struct uses (the primary type, the structs no other uses).
    case primaryTypeNotRoot(primaryType: String, roots: [String])

    public var description: String {
        let q = Self.quoted
        return switch self {
        case .invalidJSON(let offset): "the typed data is not valid JSON (at byte \(offset))"
        case .missingMember(let name): "the typed data lacks \(q(name)) or it has the wrong form"
        case .unknownType(let name): "the typed data uses the type \(q(name)), which it does not declare"
        case .invalidTypeDeclaration(let name, let why): "the declaration of \(q(name)) is malformed: \(why)"
        case .invalidValue(let path, let type, let reason): "\(q(path)) does not fit \(q(type)): \(reason)"
        case .missingField(let path): "\(q(path)) is missing"
        case .tooDeep: "the typed data is nested too deeply"
        case .duplicateMember(let name):
            "the JSON names the member \(q(name)) twice in one object: readers disagree on which one is signed"
        case .undeclaredMember(let path, let name):
            "\(q(path)) holds the member \(q(name)), which its type does not declare: it would be shown but not signed"
        case .missingDomainMember(let name):
            "the domain lacks \(q(name)), which EIP712Domain declares: it would be signed but not shown"
        case .nonStandardDomainField(let name):
            "EIP712Domain declares \(q(name)), which is not an EIP-712 domain member"
        case .primaryTypeNotRoot(let primary, let roots):
            "primaryType \(q(primary)) is not the one struct no other uses (those are: "
                + (roots.isEmpty ? "none" : roots.map(q).joined(separator: ", ")) + ")"
        }
    }

    /// A name from the request, quoted with anything outside printable ASCII escaped and at most 60 characters.
    static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars.prefix(60) {
            if (0x20..<0x7F).contains(scalar.value) {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(scalar.value, radix: 16)
                out +=
                    scalar.value > 0xFFFF ? "\\u{\(hex)}" : "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return "'" + out + (text.unicodeScalars.count > 60 ? "...'" : "'")
    }
}
