// FuzzBBQr: feeds libFuzzer input, split at newlines, to the BBQr joiner and to PayloadDecoder; also inflates it as a
// raw deflate body. Any crash, trap or sanitizer report is a bug; thrown errors are expected.
import FuzzDriver
import FuzzTargets

@_cdecl("FuzzBBQr_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, FuzzTargets.bbqr)
}
