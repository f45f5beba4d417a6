// FuzzPSBT: libFuzzer target; its body arrives with its parser's issue.
import FuzzDriver

@_cdecl("FuzzPSBT_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { _ in }
}
