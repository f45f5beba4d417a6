/// A BIP21 payment URI: `bitcoin:<address>?amount=…&label=…&message=…`.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0021.mediawiki
public struct BIP21URI: Equatable, Sendable {
    /// An amount in BTC as BIP21 writes it, held in satoshis.
    public struct Amount: Equatable, Sendable {
        /// The amount in satoshis.
        public let sats: UInt64
    }

    /// A parameter this type does not interpret, percent-decoded.
    public struct Parameter: Equatable, Sendable {
        /// Parameter name, lower case.
        public let name: String
        /// Parameter value, percent-decoded.
        public let value: String
    }

    /// The address, checked syntactically only (see `AddressCandidate`).
    public let address: String
    /// `amount`, when given.
    public let amount: Amount?
    /// `label`, percent-decoded.
    public let label: String?
    /// `message`, percent-decoded.
    public let message: String?
    /// Other parameters (for example `lightning`, `pj`), in order.
    public let otherParameters: [Parameter]

    /// Parses a `bitcoin:` URI (scheme case-insensitive).
    ///
    /// - Throws: `BIP21Error` for another scheme, an implausible address, a bad amount, bad percent-encoding,
    ///   a repeated parameter, or a `req-` parameter this parser does not understand (BIP21 says to reject those).
    public init(string: String) throws(BIP21Error) {
        guard string.count > 8, string.prefix(8).lowercased() == "bitcoin:" else { throw .notBitcoinURI }
        let rest = string.dropFirst(8)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let address = try Self.percentDecode(parts[0])
        guard AddressCandidate.isPlausibleAddress(address) else { throw .invalidAddress(address) }
        var amount: Amount?
        var label: String?
        var message: String?
        var others: [Parameter] = []
        var seen: Set<String> = []
        if parts.count == 2, !parts[1].isEmpty {
            for pair in parts[1].split(separator: "&", omittingEmptySubsequences: true) {
                let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = try Self.percentDecode(kv[0]).lowercased()
                let value = kv.count == 2 ? try Self.percentDecode(kv[1]) : ""
                guard seen.insert(name).inserted else { throw .duplicateParameter(name) }
                switch name {
                case "amount": amount = try Self.parseAmount(value)
                case "label": label = value
                case "message": message = value
                default:
                    if name.hasPrefix("req-") { throw .unknownRequiredParameter(name) }
                    others.append(Parameter(name: name, value: value))
                }
            }
        }
        self.address = address
        self.amount = amount
        self.label = label
        self.message = message
        otherParameters = others
    }

    /// Decodes `%XX` escapes (UTF-8).
    static func percentDecode(_ text: Substring) throws(BIP21Error) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let c = iterator.next() {
            guard c == UInt8(ascii: "%") else {
                bytes.append(c)
                continue
            }
            guard let hi = iterator.next(), let lo = iterator.next(),
                let byte = try? TextCodec.bytes(hex: String(decoding: [hi, lo], as: UTF8.self)).first
            else { throw .invalidPercentEncoding(String(text.prefix(40))) }
            bytes.append(byte)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .invalidPercentEncoding(String(text.prefix(40)))
        }
        return decoded
    }

    /// Parses a decimal BTC amount: digits, at most one `.`, at most 8 decimals, at most 21,000,000 BTC.
    static func parseAmount(_ text: String) throws(BIP21Error) -> Amount {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2, let whole = pieces.first, !(whole.isEmpty && (pieces.count == 1 || pieces[1].isEmpty)),
            whole.count <= 8, whole.allSatisfy({ $0.isASCII && $0.isNumber })
        else { throw .invalidAmount(text) }
        let fraction = pieces.count == 2 ? pieces[1] : ""
        guard fraction.count <= 8, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidAmount(text)
        }
        let sats =
            (UInt64(whole) ?? 0) * 100_000_000
            + (UInt64(fraction + String(repeating: "0", count: 8 - fraction.count)) ?? 0)
        guard sats <= 21_000_000 * 100_000_000 else { throw .invalidAmount(text) }
        return Amount(sats: sats)
    }
}
