// FuzzPNG: libFuzzer target feeding arbitrary bytes to QRImage's PNG reader (libpng simplified API, then zbar).
// Every input must end in codes or a typed QRImageError, never a crash, a sanitizer report or a huge allocation.
import FuzzDriver
import QRImage

@_cdecl("FuzzPNG_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    // 4 megapixels caps each input's pixel buffer at 4 MB, so libFuzzer's RSS limit measures leaks, not big headers.
    guard let reader = try? QRReader(maxPixels: 4_000_000) else { return 1 }
    return runFuzzer(argc, argv) { bytes in
        _ = try? reader.read(png: bytes)
    }
}
