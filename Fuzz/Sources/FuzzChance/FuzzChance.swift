// FuzzChance: feeds libFuzzer input to the Chance wallet multisig: text parser and the previous-transaction file
// reader (Fuzz/Sources/FuzzTargets/ChanceTarget.swift). Thrown errors are expected; crashes and sanitizer reports are
// bugs.
import FuzzDriver
import FuzzTargets

@_cdecl("FuzzChance_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, FuzzTargets.chance)
}
