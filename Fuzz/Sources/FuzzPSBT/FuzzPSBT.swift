// FuzzPSBT: libFuzzer target for the PSBT parser (BIP174/BIP370 and the 371/373 fields), the first code that sees a
// PSBT from outside. Every input must end in a PSBT or a typed PSBTError, never a crash or a sanitizer report; and
// whatever parses must serialize back to the very same bytes and parse again to an equal value. The operations a
// signer runs next (unsigned transaction, typed field views, finalizer, extractor, signer, combiner) run on it too.
// Build and run: see docs/fuzzing.md (the libraries need -sanitize=address and -sanitize-coverage on the command
// line, which Fuzz/Package.swift cannot set for a dependency).
import FuzzDriver
import FuzzTargets

@_cdecl("FuzzPSBT_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, FuzzTargets.psbt)
}
