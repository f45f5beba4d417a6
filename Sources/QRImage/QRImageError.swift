/// Errors from making QR-code images and from reading QR codes out of PNG, JPEG and GIF images.
public enum QRImageError: Error, Equatable, Sendable {
    /// The input holds no bytes at all.
    case emptyInput
    /// The data does not start with the 8-byte PNG signature; `prefix` holds up to its first 8 bytes.
    case notPNG(prefix: [UInt8])
    /// libpng rejected the data (corrupt or truncated stream, bad CRC, bad header); `message` is libpng's.
    case invalidPNG(message: String)
    /// libjpeg rejected the data (corrupt or truncated stream, unsupported color space); `message` is libjpeg's.
    case invalidJPEG(message: String)
    /// giflib rejected the data, or a frame lies outside the screen; `message` says which.
    case invalidGIF(String)
    /// The data is none of the image formats read (PNG, JPEG, GIF); `prefix` holds up to its first 8 bytes.
    case notAnImage(prefix: [UInt8])
    /// A chunk declares more data than the file holds (a truncated file, or a forged length); caught before libpng
    /// sees the chunk, since libpng would allocate the declared length first.
    case truncatedChunk(type: String, declaredLength: Int, available: Int)
    /// The image header declares more pixels than the reader accepts; nothing was allocated for them.
    case imageTooLarge(width: Int, height: Int, maxPixels: Int)
    /// The image decoded, but no QR code was found in it by any reading pass.
    case noCodeFound(width: Int, height: Int)
    /// The payload does not fit in one QR code at this error-correction level (and forced `version`, when given).
    case payloadTooLarge(byteCount: Int, errorCorrection: QRErrorCorrection, version: Int?)
    /// The requested QR version is outside 1...40.
    case invalidVersion(Int)
    /// Text given to the text encoder holds a NUL character, which libqrencode's string mode cannot carry.
    case textContainsNUL
    /// A rendering parameter (module size, margin, column count, pixel limit) is outside its allowed range.
    case invalidParameter(name: String, value: Int)
    /// A sheet caption holds a character the built-in bitmap font cannot draw.
    case unsupportedCaptionCharacter(Character)
    /// A sheet was asked for with no codes in it.
    case emptySheet
    /// libqrencode failed for a reason other than size; `errno` is the code it left.
    case encoderFailed(errno: Int32)
    /// giflib failed to write an animation; the text is giflib's.
    case gifWriteFailed(String)
    /// libpng failed to write the image; `message` is libpng's.
    case pngWriteFailed(message: String)
    /// zbar could not create a scanner or an image, or `zbar_image_scanner_set_config` returned `code`.
    case scannerSetupFailed(code: Int32)
    /// zbar's `zbar_scan_image` reported an error (a negative return `code`).
    case scanFailed(code: Int32)
    /// A file could not be read; `reason` describes the failure.
    case fileUnreadable(path: String, reason: String)
}

extension QRImageError: CustomStringConvertible {
    /// What went wrong, in words a user reads.
    public var description: String {
        switch self {
        case .emptyInput: "the file is empty"
        case .notPNG: "not a PNG image"
        case .invalidPNG(let message): "a damaged PNG image (\(message))"
        case .invalidJPEG(let message): "a damaged JPEG image (\(message))"
        case .invalidGIF(let message): "a damaged GIF image (\(message))"
        case .notAnImage: "not a PNG, JPEG or GIF image"
        case .truncatedChunk: "the image file is cut short (copied only in part?)"
        case .imageTooLarge(let width, let height, let maxPixels):
            "the image is \(width)×\(height) pixels, more than the \(maxPixels) read"
        case .noCodeFound: "no QR code found in the image"
        case .payloadTooLarge(let count, _, _): "\(count) bytes do not fit in one QR code"
        case .invalidVersion(let version): "QR version \(version) does not exist (1 to 40)"
        case .textContainsNUL: "the text holds a NUL character, which a QR code cannot carry"
        case .invalidParameter(let name, let value): "\(name) \(value) is out of range"
        case .unsupportedCaptionCharacter(let character): "the caption character '\(character)' cannot be drawn"
        case .emptySheet: "a sheet needs at least one code"
        case .encoderFailed: "the QR encoder failed"
        case .gifWriteFailed(let message): "cannot write the GIF (\(message))"
        case .pngWriteFailed(let message): "cannot write the PNG (\(message))"
        case .scannerSetupFailed: "the QR scanner could not be set up"
        case .scanFailed: "the QR scanner failed on this image"
        case .fileUnreadable(let path, let reason): "cannot read \(path): \(reason)"
        }
    }
}
