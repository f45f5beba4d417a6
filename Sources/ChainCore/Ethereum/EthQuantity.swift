import Codecs
public import Ethereum

/// Strict readers of the JSON-RPC encodings of Ethereum's execution API.
///
/// A QUANTITY is `0x` and lower-case hex digits
/// without leading zeros (`0x0` for zero, pattern `^0x(0|[1-9a-f][0-9a-f]*)$`), DATA is `0x` and an even number of hex
/// digits. Anything else (a JSON number, `0x`, `0x01`, upper case, a value above 2^256 - 1) is
/// `ChainError.invalidField` naming the server and the field, never a trap.
///
/// - SeeAlso: https://github.com/ethereum/execution-apis (src/schemas/base-types.yaml, `uint` and `bytes`)
public struct EthReplyReader: Sendable {
    /// The node, as shown to the user.
    public let server: String

    public init(server: String) { self.server = server }

    public func invalid(_ field: String, _ value: JSONValue?) -> ChainError {
        ReplyChecker(server: server).invalid(field, value)
    }

    /// A QUANTITY of at most 256 bits.
    ///
    /// - Throws: `ChainError.invalidField`.
    public func quantity(_ value: JSONValue?, _ field: String) throws(ChainError) -> UInt256 {
        guard let text = value?.string else { throw invalid(field, value) }
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes[0] == 0x30, bytes[1] == 0x78 else { throw invalid(field, value) }
        let digits = bytes.dropFirst(2)
        guard digits.count <= 64 else { throw invalid(field + " (above 2^256 - 1)", value) }
        guard digits.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw invalid(field, value)
        }
        if digits.count > 1, digits.first == 0x30 { throw invalid(field + " (leading zero)", value) }
        do { return try UInt256(string: text) } catch { throw invalid(field, value) }
    }

    /// A QUANTITY that fits in 64 bits (block numbers, nonces, gas).
    ///
    /// - Throws: `ChainError.invalidField`.
    public func uint64(_ value: JSONValue?, _ field: String) throws(ChainError) -> UInt64 {
        guard let small = try quantity(value, field).uint64 else { throw invalid(field + " (above 2^64 - 1)", value) }
        return small
    }

    /// DATA: `0x` and pairs of hex digits (either case), exactly `length` bytes when given.
    ///
    /// - Throws: `ChainError.invalidField`.
    public func data(_ value: JSONValue?, _ field: String, length: Int? = nil) throws(ChainError) -> [UInt8] {
        guard let text = value?.string, text.hasPrefix("0x"), let bytes = Hex.decode(text) else {
            throw invalid(field, value)
        }
        if let length, bytes.count != length { throw invalid(field + " (not \(length) bytes)", value) }
        return bytes
    }

    /// A 20-byte address (any case; the checksum is not required from a node).
    ///
    /// - Throws: `ChainError.invalidField`.
    public func address(_ value: JSONValue?, _ field: String) throws(ChainError) -> EthereumAddress {
        let bytes = try data(value, field, length: 20)
        do { return try EthereumAddress(bytes: bytes) } catch { throw invalid(field, value) }
    }

    /// A JSON object.
    ///
    /// - Throws: `ChainError.invalidField`.
    public func object(_ value: JSONValue?, _ field: String) throws(ChainError) -> JSONValue {
        guard let value, value.object != nil else { throw invalid(field, value) }
        return value
    }

    /// A JSON array.
    ///
    /// - Throws: `ChainError.invalidField`.
    public func array(_ value: JSONValue?, _ field: String) throws(ChainError) -> [JSONValue] {
        guard let array = value?.array else { throw invalid(field, value) }
        return array
    }
}

/// QUANTITY and DATA text for requests.
public enum EthHex {
    /// `0x` and lower-case hex without leading zeros.
    public static func quantity(_ value: UInt256) -> String {
        let hex = Hex.encode(value.minimalBytes)
        let trimmed = hex.drop { $0 == "0" }
        return "0x" + (trimmed.isEmpty ? "0" : trimmed)
    }

    /// `0x` and lower-case hex without leading zeros.
    public static func quantity(_ value: UInt64) -> String { "0x" + String(value, radix: 16) }

    /// `0x` and the bytes in lower-case hex.
    public static func data(_ bytes: some Sequence<UInt8>) -> String { "0x" + Hex.encode(bytes) }
}
