import Bitcoin
import Codecs

/// Converts the numbers, lengths and indexes of one server's replies with a check: a value that is missing, not an
/// integer or out of range becomes `ChainError.invalidField` naming the server and the field, never a trap.
public struct ReplyChecker: Sendable {
    /// The server, as shown to the user (its URL without credentials).
    public let server: String

    /// The highest block height accepted from a server (far beyond any chain for centuries).
    public static let maxHeight = 100_000_000
    /// The highest fee rate accepted from a server's estimate: 1 BTC per kvB (100,000 sat/vB).
    public static let maxFeeRate = FeeRate(satsPerKVB: 100_000_000)

    public init(server: String) { self.server = server }

    /// The error for `field` holding `value`.
    public func invalid(_ field: String, _ value: JSONValue?) -> ChainError {
        let text = value.map { String(decoding: $0.serialized().prefix(80), as: UTF8.self) } ?? "nothing"
        return .invalidField(server: server, field: field, value: text)
    }

    /// An integer field within `range`.
    ///
    /// - Throws: `ChainError.invalidField` when it is missing, not an integer, or outside `range`.
    public func int(_ value: JSONValue?, _ field: String, in range: ClosedRange<Int>) throws(ChainError) -> Int {
        guard let number = value?.int, range.contains(number) else { throw invalid(field, value) }
        return number
    }

    /// A block height, from 0 to `maxHeight`.
    ///
    /// - Throws: `ChainError.invalidField`.
    public func height(_ value: JSONValue?, _ field: String) throws(ChainError) -> Int {
        try int(value, field, in: 0...Self.maxHeight)
    }

    /// An output index (`vout`), from 0 to `UInt32.max`.
    ///
    /// - Throws: `ChainError.invalidField`.
    public func vout(_ value: JSONValue?, _ field: String) throws(ChainError) -> UInt32 {
        UInt32(try int(value, field, in: 0...Int(UInt32.max)))
    }

    /// A count or position, from 0 to `limit`.
    ///
    /// - Throws: `ChainError.invalidField`.
    public func count(_ value: JSONValue?, _ field: String, limit: Int = Int(Int32.max)) throws(ChainError) -> Int {
        try int(value, field, in: 0...limit)
    }

    /// A fee rate given as `unitsPerKVB` units (1e8 for BTC/kvB, 1000 for sat/vB) per kvB; at least the relay minimum
    /// of 1 sat/vB; nil when the server says it has no estimate (zero or negative, Electrum's -1).
    ///
    /// - Throws: `ChainError.invalidField` when it is not a finite number or above `maxFeeRate`.
    public func feeRate(_ value: JSONValue?, _ field: String, satsPerKVBPerUnit: Double) throws(ChainError) -> FeeRate?
    {
        guard let number = value?.double, number.isFinite else { throw invalid(field, value) }
        guard number > 0 else { return nil }
        let sats = (number * satsPerKVBPerUnit).rounded()
        guard sats.isFinite, sats <= Double(Self.maxFeeRate.satsPerKVB) else { throw invalid(field, value) }
        return FeeRate(satsPerKVB: max(1000, UInt64(sats)))
    }
}
