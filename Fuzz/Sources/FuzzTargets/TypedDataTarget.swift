// FuzzTypedData: feeds libFuzzer input as `eth_signTypedData_v4` JSON: the JSON parser, the type checks and the full
// EIP-712 encoding (nested structs, arrays, integer widths). Thrown errors are expected; crashes, traps and
// unbounded recursion are bugs.
import Ethereum

extension FuzzTargets {
    /// One input of FuzzTypedData.
    public static func typedData(_ bytes: [UInt8]) {
        guard let data = try? TypedData(json: bytes) else { return }
        _ = try? data.signingHash()
        _ = data.isPermit
        for name in data.types.keys.sorted().prefix(8) { _ = try? data.encodeType(name) }
    }
}
