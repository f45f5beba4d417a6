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
            let preview = String(decoding: bytes.prefix(120), as: UTF8.self)
            switch error {
            case .malformed(let offset, let reason):
                throw .protocolViolation("not JSON (\(reason) at byte \(offset)): \(preview)")
            case .duplicateMember(let name, let offset):
                throw .protocolViolation(
                    "not JSON (the member \"\(JSONError.quotedName(name))\" named twice at byte \(offset)): \(preview)")
            }
        }
    }
}
