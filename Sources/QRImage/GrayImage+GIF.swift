internal import CGIF

extension GrayImage {
    /// "GIF8": the start of GIF87a and GIF89a files.
    static let gifSignature: [UInt8] = Array("GIF8".utf8)
    /// The most frames read from one GIF (an animated QR code of a large payload has a few hundred).
    static let maxGIFFrames = 5_000

    /// Decodes every frame of a GIF (a still image has one) to 8-bit gray, each composited onto the canvas the way a
    /// viewer shows it: frames smaller than the screen are placed at their offset, transparency keeps what is under
    /// it, and each frame's disposal method (keep, clear to the background, restore the previous) is honoured.
    ///
    /// Every frame's size is checked before its pixels are read, and frames must lie inside the screen.
    ///
    /// - Throws: `QRImageError.emptyInput`, `.invalidGIF` (giflib's message), `.imageTooLarge`.
    static func gifFrames(_ data: [UInt8], maxPixels: Int) throws(QRImageError) -> [GrayImage] {
        guard !data.isEmpty else { throw .emptyInput }
        let result: Result<[GrayImage], QRImageError> = data.withUnsafeBufferPointer { buffer in
            var source = airlock_gif_source(data: buffer.baseAddress, size: buffer.count, offset: 0)
            return withUnsafeMutablePointer(to: &source) { pointer in
                var error: Int32 = 0
                guard let file = airlock_gif_open(pointer, &error) else { return .failure(.invalidGIF(message(error))) }
                defer {
                    var closeError: Int32 = 0
                    _ = DGifCloseFile(file, &closeError)
                }
                return decodeFrames(file, maxPixels: maxPixels)
            }
        }
        return try result.get()
    }

    private static func message(_ code: Int32) -> String {
        guard let text = GifErrorString(code) else { return "giflib error \(code)" }
        return String(cString: text)
    }

    /// Reads the records of an open GIF: extensions (for each frame's disposal and transparency) and images.
    private static func decodeFrames(_ file: UnsafeMutablePointer<GifFileType>, maxPixels: Int)
        -> Result<[GrayImage], QRImageError>
    {
        let width = Int(file.pointee.SWidth)
        let height = Int(file.pointee.SHeight)
        guard width > 0, height > 0, width * height <= maxPixels else {
            return .failure(.imageTooLarge(width: width, height: height, maxPixels: maxPixels))
        }
        var canvas = GrayImage(width: width, height: height)
        var frames: [GrayImage] = []
        var control = GraphicsControlBlock(
            DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false, DelayTime: 0,
            TransparentColor: NO_TRANSPARENT_COLOR)
        while true {
            var record = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(file, &record) == GIF_OK else {
                return .failure(.invalidGIF(message(file.pointee.Error)))
            }
            switch record {
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(file, &code, &block) == GIF_OK else {
                    return .failure(.invalidGIF(message(file.pointee.Error)))
                }
                if code == GRAPHICS_EXT_FUNC_CODE, let block, block.pointee >= 4 {
                    _ = DGifExtensionToGCB(Int(block.pointee), block + 1, &control)
                }
                while block != nil {
                    guard DGifGetExtensionNext(file, &block) == GIF_OK else {
                        return .failure(.invalidGIF(message(file.pointee.Error)))
                    }
                }
            case IMAGE_DESC_RECORD_TYPE:
                guard frames.count < maxGIFFrames else {
                    return .failure(.invalidGIF("more than \(maxGIFFrames) frames"))
                }
                guard DGifGetImageDesc(file) == GIF_OK else {
                    return .failure(.invalidGIF(message(file.pointee.Error)))
                }
                let frame = file.pointee.Image
                let (left, top) = (Int(frame.Left), Int(frame.Top))
                let (frameWidth, frameHeight) = (Int(frame.Width), Int(frame.Height))
                guard frameWidth > 0, frameHeight > 0, left + frameWidth <= width, top + frameHeight <= height else {
                    return .failure(
                        .invalidGIF(
                            "frame \(frames.count + 1) (\(frameWidth)×\(frameHeight) at \(left),\(top)) "
                                + "lies outside the \(width)×\(height) screen"))
                }
                guard let colors = frame.ColorMap ?? file.pointee.SColorMap else {
                    return .failure(.invalidGIF("frame \(frames.count + 1) has no color table"))
                }
                let palette = (0..<Int(colors.pointee.ColorCount)).map { luma(colors.pointee.Colors[$0]) }
                let before = canvas
                var line = [GifPixelType](repeating: 0, count: frameWidth)
                for row in rowOrder(height: frameHeight, interlaced: frame.Interlace) {
                    guard DGifGetLine(file, &line, Int32(frameWidth)) == GIF_OK else {
                        return .failure(.invalidGIF(message(file.pointee.Error)))
                    }
                    let start = (top + row) * width + left
                    for column in 0..<frameWidth {
                        let index = Int(line[column])
                        guard index != Int(control.TransparentColor) else { continue }
                        canvas.pixels[start + column] = index < palette.count ? palette[index] : 255
                    }
                }
                frames.append(canvas)
                switch control.DisposalMode {
                case DISPOSE_BACKGROUND:
                    canvas.fill(x: left, y: top, width: frameWidth, height: frameHeight, value: 255)
                case DISPOSE_PREVIOUS: canvas = before
                default: break
                }
                control.DisposalMode = DISPOSAL_UNSPECIFIED
                control.TransparentColor = NO_TRANSPARENT_COLOR
            case TERMINATE_RECORD_TYPE:
                guard !frames.isEmpty else { return .failure(.invalidGIF("no image in the file")) }
                return .success(frames)
            default:
                return .failure(.invalidGIF("unknown record type"))
            }
        }
    }

    /// The gray level of a palette color (ITU-R BT.601 luma weights).
    private static func luma(_ color: GifColorType) -> UInt8 {
        let red = 299 * Int(color.Red)
        let green = 587 * Int(color.Green)
        let blue = 114 * Int(color.Blue)
        return UInt8((red + green + blue) / 1000)
    }

    /// The order in which a frame's rows arrive: top to bottom, or GIF's four interlace passes.
    private static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
        guard interlaced else { return Array(0..<height) }
        return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in
            Array(stride(from: start, to: height, by: step))
        }
    }
}
