// FuzzEIP4527: feeds libFuzzer input as the CBOR of `eth-sign-request`, `eth-signature` and `crypto-hdkey`, and as UR
// text through the payload decoder. What decodes must re-encode and decode to the same value; for a request, its
// sign-data goes on to the parser its data type names. Thrown errors are expected.
import AirgapTransport
import Ethereum

extension FuzzTargets {
    /// One input of FuzzEIP4527.
    public static func eip4527(_ bytes: [UInt8]) {
        if let request = try? UREthSignRequest(serialized: bytes) {
            let again = try? UREthSignRequest(serialized: request.serialized())
            precondition(again == request, "eth-sign-request round trip changed the value")
            switch request.dataType {
            case .legacyTransaction, .typedTransaction:
                _ = try? EthereumTransaction(unsignedSerialized: request.signData)
            case .typedData:
                _ = try? TypedData(json: request.signData).signingHash()
            case .personalMessage:
                _ = PersonalMessage(bytes: request.signData).printableText
            }
        }
        if let signature = try? UREthSignature(serialized: bytes) {
            precondition(
                (try? UREthSignature(serialized: signature.serialized())) == signature,
                "eth-signature round trip changed the value")
        }
        if let key = try? URHDKey(serialized: bytes) {
            precondition((try? URHDKey(serialized: key.serialized())) == key, "crypto-hdkey round trip changed")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var payload = PayloadDecoder(expecting: [.ethSignRequest, .ethSignature, .hdKey])
        for line in text.split(separator: "\n").prefix(32) { _ = try? payload.receive(String(line)) }
        _ = try? payload.result()
    }
}
