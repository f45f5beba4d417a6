/// What can go wrong reading a descriptor or showing a request through one; each case carries a plain sentence.
public enum ClearSigningError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The descriptor file is not a usable ERC-7730 descriptor.
    case invalidDescriptor(String)
    /// The descriptor is of a `$schema` major version the signer does not read.
    case unsupportedVersion(String)
    /// The call data does not decode by the descriptor's signature.
    case invalidCalldata(String)
    /// A field's `visible: {mustMatch}` does not hold: the descriptor does not apply to this request.
    case mustMatchFailed(String)

    public var description: String {
        switch self {
        case .invalidDescriptor(let why): "not a usable ERC-7730 descriptor: \(why)"
        case .unsupportedVersion(let why): why
        case .invalidCalldata(let why): "the call does not decode by its descriptor: \(why)"
        case .mustMatchFailed(let why): "the descriptor does not apply: \(why)"
        }
    }
}
