// FuzzTypedData: feeds libFuzzer input as `eth_signTypedData_v4` JSON: the JSON parser, the type checks and the full
// EIP-712 encoding (nested structs, arrays, integer widths). Thrown errors are expected; crashes, traps and
// unbounded recursion are bugs.
import FuzzDriver
import FuzzTargets

@_cdecl("FuzzTypedData_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, FuzzTargets.typedData)
}
