// FuzzPNG: libFuzzer target feeding arbitrary bytes to QRImage's PNG reader (libpng simplified API, then zbar).
// Every input must end in codes or a typed QRImageError, never a crash, a sanitizer report or a huge allocation.
import FuzzDriver
import FuzzTargets

@_cdecl("FuzzPNG_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv, FuzzTargets.png)
}
