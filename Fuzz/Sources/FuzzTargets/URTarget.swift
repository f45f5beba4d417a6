// FuzzUR: feeds libFuzzer input to the UR stack: as UR part strings through PayloadDecoder and URDecoder, and as raw
// CBOR to every UR registry decoder. Any crash, trap or sanitizer report is a bug; thrown errors are expected.
import AirgapTransport

extension FuzzTargets {
    /// One input of FuzzUR.
    public static func ur(_ bytes: [UInt8]) {
        // 1. The input as CBOR of each registry type.
        for type in URRegistryItem.supportedTypes {
            if let ur = try? UR(type: type, cbor: bytes), let item = try? URRegistryItem(ur) {
                // Whatever decodes must re-encode and decode to the same value.
                if let again = try? item.ur(type: type), let item2 = try? URRegistryItem(again) {
                    precondition(item2 == item, "registry round trip changed the value")
                }
            }
        }
        // 2. The input as newline-separated UR part strings.
        let text = String(decoding: bytes, as: UTF8.self)
        var decoder = URDecoder()
        var payload = PayloadDecoder()
        for line in text.split(separator: "\n").prefix(32) {
            _ = try? decoder.receive(String(line))
            _ = try? payload.receive(String(line))
        }
        _ = decoder.estimatedFractionComplete
        _ = decoder.missingFragments
        _ = try? payload.result()
        _ = payload.progress
        // 3. The input as the bytewords body of a multi-part part and of a single-part crypto-psbt.
        let body = String(decoding: bytes.prefix(2048), as: UTF8.self)
        var second = URDecoder()
        _ = try? second.receive("ur:crypto-psbt/1-3/" + body)
        _ = try? UR(string: "ur:crypto-account/" + body)
    }
}
