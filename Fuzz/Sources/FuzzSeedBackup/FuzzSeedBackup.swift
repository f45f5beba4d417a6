// FuzzSeedBackup: see FuzzTargets/SeedBackupTarget.swift and docs/fuzzing.md.
import FuzzDriver
import FuzzTargets

@_cdecl("FuzzSeedBackup_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, FuzzTargets.seedBackup)
}
