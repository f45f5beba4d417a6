// FuzzImage: bytes through `QRReader.read(image:)`, the call the signer's isolated image decoder makes in its child
// process (`IsolatedImageDecoder.decodeInProcess`): JPEG (libjpeg-turbo) and GIF (giflib, every frame) as well as
// PNG, then zbar. Any trap, sanitizer report or huge allocation is a bug.
import QRImage

// 1 megapixel caps each input's pixel buffer at 1 MB, as FuzzPNG does.
nonisolated(unsafe) private let imageReader: QRReader? = try? QRReader(maxPixels: 1_000_000)

extension FuzzTargets {
    /// One input of FuzzImage.
    public static func image(_ bytes: [UInt8]) {
        guard let imageReader else { preconditionFailure("QRReader does not start") }
        _ = try? imageReader.read(image: bytes)
    }
}
