public import Codecs

extension JSONValue {
    /// Parses a server's answer, strictly (RFC 8259, Codecs' one parser: numbers kept as text, a member named twice
    /// refused).
    ///
    /// - Throws: `ChainError.protocolViolation` when it is not JSON.
    public static func parse(_ bytes: some Collection<UInt8>) throws(ChainError) -> JSONValue {
        do {
            return try JSONValue(json: bytes)
        } catch {
            throw violation(error, bytes)
        }
    }

    /// The error of a server's answer that is not JSON, with the start of it.
    static func violation(_ error: JSONError, _ bytes: some Collection<UInt8>) -> ChainError {
        let preview = String(decoding: bytes.prefix(120), as: UTF8.self)
        switch error {
        case .malformed(let offset, let reason):
            return .protocolViolation("not JSON (\(reason) at byte \(offset)): \(preview)")
        case .duplicateMember(let name, let offset):
            return .protocolViolation(
                "not JSON (the member \"\(JSONError.quotedName(name))\" named twice at byte \(offset)): \(preview)")
        }
    }
}

extension JSONDocument {
    /// Parses a server's answer to be read in place, strictly, as `JSONValue.parse` does (the same errors).
    ///
    /// - Throws: `ChainError.protocolViolation` when it is not JSON.
    public static func parse(_ bytes: some Collection<UInt8>) throws(ChainError) -> JSONDocument {
        do {
            return try JSONDocument(json: bytes)
        } catch {
            throw JSONValue.violation(error, bytes)
        }
    }
}
