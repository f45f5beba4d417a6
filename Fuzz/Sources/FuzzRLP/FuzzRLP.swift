// FuzzRLP: feeds libFuzzer input to the strict RLP decoder and to the unsigned-transaction parser EIP-4527 requests
// use. What decodes must re-encode to exactly the input (the decoder accepts only canonical RLP); a parsed
// transaction must serialize back to the input. Thrown errors are expected; crashes and sanitizer reports are bugs.
import FuzzDriver
import FuzzTargets

@_cdecl("FuzzRLP_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, FuzzTargets.rlp)
}
