internal import CJPEG
import Foundation

extension GrayImage {
    /// The first bytes of every JPEG stream (start of image, then a marker).
    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// Decodes a JPEG (baseline or progressive, gray or color) to 8-bit gray with libjpeg-turbo.
    ///
    /// The pixel count is checked from the header before any pixel memory is allocated; libjpeg's fatal errors are
    /// caught inside the C shim and come back as `invalidJPEG` with libjpeg's message.
    ///
    /// - Throws: `QRImageError.emptyInput`, `.invalidJPEG`, `.imageTooLarge`.
    init(jpeg data: [UInt8], maxPixels: Int) throws(QRImageError) {
        guard !data.isEmpty else { throw .emptyInput }
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0
        var height: UInt32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = data.withUnsafeBufferPointer { buffer in
            airlock_jpeg_decode_gray(
                buffer.baseAddress, UInt(buffer.count), maxPixels, &pixels, &width, &height, &message, message.count)
        }
        defer { free(pixels) }
        switch status {
        case AIRLOCK_JPEG_OK:
            guard let pixels else { throw .invalidJPEG(message: "no pixels") }
            let count = Int(width) * Int(height)
            self.init(
                width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
        case AIRLOCK_JPEG_TOO_LARGE:
            throw .imageTooLarge(width: Int(width), height: Int(height), maxPixels: maxPixels)
        case AIRLOCK_JPEG_NO_MEMORY:
            throw .invalidJPEG(message: "out of memory for \(width)×\(height) pixels")
        default:
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw .invalidJPEG(message: text.isEmpty ? "corrupt JPEG data" : text)
        }
    }
}
