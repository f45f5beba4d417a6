// FuzzUR: feeds libFuzzer input to the UR stack: as UR part strings through PayloadDecoder and URDecoder, and as raw
// CBOR to every UR registry decoder. Any crash, trap or sanitizer report is a bug; thrown errors are expected.
import FuzzDriver
import FuzzTargets

@_cdecl("FuzzUR_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, FuzzTargets.ur)
}
