// FuzzPaymentURI: text as a payment request: a BIP21 `bitcoin:` URI through `BIP21URI(string:)` (percent-decoding,
// the address check, amounts, repeated and `req-` parameters), and the Ethereum address text check (EIP-55) an
// `ethereum:` URI's target goes through. There is no EIP-681 parser in Airlock: the watcher only writes those URIs
// (docs/fuzzing.md). Any trap is a bug.
import AirgapTransport
import Bitcoin
import Ethereum

extension FuzzTargets {
    /// One input of FuzzPaymentURI.
    public static func paymentURI(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let uri = try? BIP21URI(string: text) {
            precondition(AddressCandidate.isPlausibleAddress(uri.address), "a BIP21 URI with a bad address parsed")
            if let amount = uri.amount {
                precondition(amount.sats <= 21_000_000 * 100_000_000, "an amount over 21M BTC")
            }
        }
        _ = AddressCandidate.isPlausibleAddress(text)
        let target = text.lowercased().hasPrefix("ethereum:") ? String(text.dropFirst(9)) : text
        let address = target.prefix { $0 != "@" && $0 != "/" && $0 != "?" }
        if let parsed = try? EthereumAddress(string: String(address)) {
            precondition((try? EthereumAddress(string: parsed.checksummed)) == parsed, "EIP-55 round trip failed")
        }
    }
}
