/// A Uniform Resource: a registry type name and the CBOR it carries.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-005-ur.md
public struct UR: Equatable, Sendable {
    /// The type, lower case (`psbt`, `crypto-psbt`, `crypto-account`…).
    public let type: String
    /// The CBOR encoding of the value.
    public let cbor: [UInt8]

    /// Wraps `cbor` as a UR of `type`.
    ///
    /// - Throws: `URError.invalidType` when `type` is empty or has characters outside `a-z`, `0-9`, `-`.
    public init(type: String, cbor: [UInt8]) throws(URError) {
        guard Self.isValidType(type) else { throw .invalidType(type) }
        self.type = type
        self.cbor = cbor
    }

    /// Returns whether `type` is a valid UR type: non-empty, only `a-z`, `0-9` and `-`.
    package static func isValidType(_ type: String) -> Bool {
        !type.isEmpty
            && type.utf8.allSatisfy { c in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c)
                    || c == UInt8(ascii: "-")
            }
    }

    /// The single-part string `ur:<type>/<minimal bytewords>` (lower case).
    public var string: String { "ur:\(type)/" + Bytewords.encode(cbor, style: .minimal) }

    /// Parses a single-part UR string (any case).
    ///
    /// - Throws: `URError` when the text is not a single-part UR or its bytewords fail.
    public init(string: String) throws(URError) {
        let parsed = try URString(string)
        guard parsed.sequence == nil else { throw .invalidPath("multi-part UR where a single-part UR was expected") }
        let cbor: [UInt8]
        do { cbor = try Bytewords.decode(parsed.body, style: .minimal) } catch { throw .bytewords(error) }
        try self.init(type: parsed.type, cbor: cbor)
    }
}
