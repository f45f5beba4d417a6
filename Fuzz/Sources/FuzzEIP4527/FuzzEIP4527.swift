// FuzzEIP4527: feeds libFuzzer input as the CBOR of `eth-sign-request`, `eth-signature` and `crypto-hdkey`, and as UR
// text through the payload decoder. What decodes must re-encode and decode to the same value; for a request, its
// sign-data goes on to the parser its data type names. Thrown errors are expected.
import FuzzDriver
import FuzzTargets

@_cdecl("FuzzEIP4527_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, FuzzTargets.eip4527)
}
