internal import CGIF
import Foundation

extension QRCode {
    /// The frame rates an animated GIF may have (GIF delays are in hundredths of a second).
    public static let gifFrameRates = 1...50

    /// Renders codes as the frames of one looping animated GIF (a 2-color palette), as a hardware wallet's screen
    /// cycles the parts of a multi-part payload; a scanner that misses frames catches them on the next loop.
    ///
    /// Every frame has the size of the largest code; smaller codes are centred on white. With `caption`, every frame
    /// carries it under its code (`QRCode.pngData(caption:)`).
    ///
    /// - Parameters:
    ///   - codes: the frames, in order (at least one).
    ///   - framesPerSecond: 1 to 50.
    ///   - moduleSize: pixels a module, 1 to 64.
    ///   - margin: quiet-zone modules, 0 to 64 (1 to 64 with a caption).
    ///   - caption: lines under every frame's code; empty for none.
    /// - Returns: the GIF file's bytes.
    /// - Throws: `QRImageError.emptySheet` for no codes, `.invalidParameter` for values out of range,
    ///   `.gifWriteFailed` if giflib fails.
    public static func animatedGIF(
        _ codes: [QRCode],
        framesPerSecond: Int,
        moduleSize: Int = QRCode.defaultModuleSize,
        margin: Int = QRCode.defaultMargin,
        caption: [String] = []
    ) throws(QRImageError) -> [UInt8] {
        guard !codes.isEmpty else { throw .emptySheet }
        guard gifFrameRates.contains(framesPerSecond) else {
            throw .invalidParameter(name: "framesPerSecond", value: framesPerSecond)
        }
        var images: [GrayImage] = []
        for code in codes {
            images.append(
                caption.isEmpty
                    ? try code.image(moduleSize: moduleSize, margin: margin)
                    : try code.captionedImage(caption, moduleSize: moduleSize, margin: margin))
        }
        let width = images.map(\.width).max() ?? 0
        let height = images.map(\.height).max() ?? 0
        let frames = images.map { image -> GrayImage in
            guard image.width != width || image.height != height else { return image }
            var canvas = GrayImage(width: width, height: height)
            canvas.draw(image, x: (width - image.width) / 2, y: (height - image.height) / 2)
            return canvas
        }
        var sink = airlock_gif_sink(data: nil, size: 0, capacity: 0, failed: 0)
        defer { free(sink.data) }
        try withUnsafeMutablePointer(to: &sink) { (pointer) throws(QRImageError) in
            try encode(frames, width: width, height: height, delay: max(1, 100 / framesPerSecond), into: pointer)
        }
        guard sink.failed == 0, let data = sink.data else { throw .gifWriteFailed("out of memory") }
        return Array(UnsafeBufferPointer(start: data, count: sink.size))
    }

    private static func encode(
        _ frames: [GrayImage], width: Int, height: Int, delay: Int, into sink: UnsafeMutablePointer<airlock_gif_sink>
    ) throws(QRImageError) {
        var error: Int32 = 0
        guard let file = airlock_gif_create(sink, &error) else { throw .gifWriteFailed(message(error)) }
        var closed = false
        defer {
            if !closed { _ = EGifCloseFile(file, &error) }
        }
        func check(_ code: Int32) throws(QRImageError) {
            guard code == GIF_OK else { throw .gifWriteFailed(message(file.pointee.Error)) }
        }
        var colors = [GifColorType(Red: 0, Green: 0, Blue: 0), GifColorType(Red: 255, Green: 255, Blue: 255)]
        guard let palette = GifMakeMapObject(2, &colors) else { throw .gifWriteFailed("no color map") }
        defer { GifFreeMapObject(palette) }
        EGifSetGifVersion(file, true)
        try check(EGifPutScreenDesc(file, Int32(width), Int32(height), 1, 1, palette))
        // NETSCAPE2.0 application extension: loop forever.
        try check(EGifPutExtensionLeader(file, APPLICATION_EXT_FUNC_CODE))
        var application = Array("NETSCAPE2.0".utf8)
        try check(EGifPutExtensionBlock(file, 11, &application))
        var loop: [UInt8] = [1, 0, 0]
        try check(EGifPutExtensionBlock(file, 3, &loop))
        try check(EGifPutExtensionTrailer(file))
        var line = [GifPixelType](repeating: 0, count: width)
        for frame in frames {
            var control = GraphicsControlBlock(
                DisposalMode: DISPOSE_DO_NOT, UserInputFlag: false, DelayTime: Int32(delay),
                TransparentColor: NO_TRANSPARENT_COLOR)
            var extensionBytes = [GifByteType](repeating: 0, count: 4)
            let length = EGifGCBToExtension(&control, &extensionBytes)
            try check(EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, Int32(length), &extensionBytes))
            try check(EGifPutImageDesc(file, 0, 0, Int32(width), Int32(height), false, nil))
            for row in 0..<height {
                for column in 0..<width { line[column] = frame[column, row] < 128 ? 0 : 1 }
                try check(EGifPutLine(file, &line, Int32(width)))
            }
        }
        closed = true
        guard EGifCloseFile(file, &error) == GIF_OK else { throw .gifWriteFailed(message(error)) }
    }

    private static func message(_ code: Int32) -> String {
        guard let text = GifErrorString(code) else { return "giflib error \(code)" }
        return String(cString: text)
    }
}
