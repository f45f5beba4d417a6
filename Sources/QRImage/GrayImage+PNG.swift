internal import CPNG

extension GrayImage {
    /// The 8-byte signature every PNG stream starts with.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Decodes a PNG of any color type, bit depth and interlacing to 8-bit gray with libpng's simplified API.
    ///
    /// Transparent pixels are composited onto white, so a code drawn on a transparent background reads as dark on
    /// light. The pixel count is checked from the header before any pixel memory is allocated.
    ///
    /// - Throws: `QRImageError.emptyInput`, `.notPNG`, `.invalidPNG` (libpng's message), `.imageTooLarge`.
    init(png data: [UInt8], maxPixels: Int) throws(QRImageError) {
        guard !data.isEmpty else { throw .emptyInput }
        guard data.count >= 8, Array(data.prefix(8)) == Self.pngSignature else {
            throw .notPNG(prefix: Array(data.prefix(8)))
        }
        try Self.checkChunkLengths(data)
        // libpng keeps reading from the caller's buffer until png_image_finish_read, so both calls run while the
        // buffer is pinned.
        let decoded = data.withUnsafeBytes { raw in Self.decode(raw, maxPixels: maxPixels) }
        self = try decoded.get()
    }

    /// Checks that no chunk before IEND declares more bytes than the data holds.
    ///
    /// libpng allocates a buffer of a chunk's declared length before reading it (a 159-byte file declaring a 2 GB
    /// tEXt chunk made it ask for 2 GB; found by FuzzPNG), so forged lengths are refused here first.
    ///
    /// - Throws: `QRImageError.truncatedChunk`.
    static func checkChunkLengths(_ data: [UInt8]) throws(QRImageError) {
        var offset = 8
        // A chunk is length (4), type (4), data (length), CRC (4). A partial chunk header is left to libpng.
        while offset + 8 <= data.count {
            let length = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(
                decoding: data[offset + 4..<offset + 8].map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
            let available = data.count - offset - 12
            guard length <= available else {
                throw .truncatedChunk(type: type, declaredLength: length, available: max(0, available))
            }
            if type == "IEND" { return }
            offset += 12 + length
        }
    }

    /// Decodes the PNG in `raw` (both simplified-API calls run inside the caller's pin of `raw`).
    private static func decode(_ raw: UnsafeRawBufferPointer, maxPixels: Int) -> Result<GrayImage, QRImageError> {
        let reader = PNGControl()
        guard png_image_begin_read_from_memory(reader.image, raw.baseAddress, raw.count) != 0,
            airlock_png_image_failed(reader.image) == 0
        else { return .failure(.invalidPNG(message: reader.message)) }
        let width = Int(reader.image.pointee.width)
        let height = Int(reader.image.pointee.height)
        let (pixelCount, overflow) = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !overflow, pixelCount <= maxPixels, width <= Int(Int32.max) else {
            return .failure(.imageTooLarge(width: width, height: height, maxPixels: maxPixels))
        }
        // A palette file (every QR renderer's 1-bit black and white, Airlock's own included) is read as palette
        // indexes with a gray colormap, then mapped here: libpng composites and converts each of the (at most 256)
        // palette entries once instead of every pixel (converting every pixel to gray was 29% of the instructions of
        // decoding 100 UR frames; issue 19, docs/benchmarks.md). Other files are read straight to gray.
        let paletted = reader.image.pointee.format & UInt32(PNG_FORMAT_FLAG_COLORMAP) != 0
        reader.image.pointee.format = UInt32(PNG_FORMAT_GRAY) | (paletted ? UInt32(PNG_FORMAT_FLAG_COLORMAP) : 0)
        var pixels = [UInt8](repeating: 255, count: pixelCount)
        var colormap = [UInt8](repeating: 255, count: 256)
        var white = png_color(red: 255, green: 255, blue: 255)
        let finished = pixels.withUnsafeMutableBytes { out in
            colormap.withUnsafeMutableBytes { map in
                png_image_finish_read(
                    reader.image, &white, out.baseAddress, Int32(width), paletted ? map.baseAddress : nil)
            }
        }
        guard finished != 0, airlock_png_image_failed(reader.image) == 0 else {
            return .failure(.invalidPNG(message: reader.message))
        }
        if paletted {
            // Indexes past the colormap's entries cannot occur (libpng maps every pixel into it); 255 stays white.
            colormap.withUnsafeBufferPointer { map in
                pixels.withUnsafeMutableBufferPointer { samples in
                    for offset in samples.indices { samples[offset] = map[Int(samples[offset])] }
                }
            }
        }
        return .success(GrayImage(width: width, height: height, pixels: pixels))
    }

    /// Encodes the image as a PNG with libpng's simplified API.
    ///
    /// An image of pure black and white is written as a 1-bit palette PNG (an eighth of the data of 8-bit gray);
    /// any other image as 8-bit gray.
    ///
    /// - Throws: `QRImageError.pngWriteFailed` with libpng's message.
    func pngData() throws(QRImageError) -> [UInt8] {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw .invalidParameter(name: "image size", value: width * height)
        }
        let bilevel = !pixels.contains { $0 != 0 && $0 != 255 }
        let writer = PNGControl()
        writer.image.pointee.width = UInt32(width)
        writer.image.pointee.height = UInt32(height)
        var samples = pixels
        var colormap: [UInt8] = [0, 255]
        if bilevel {
            writer.image.pointee.format = UInt32(PNG_FORMAT_GRAY) | UInt32(PNG_FORMAT_FLAG_COLORMAP)
            writer.image.pointee.colormap_entries = 2
            samples = pixels.map { $0 == 0 ? 0 : 1 }
        } else {
            writer.image.pointee.format = UInt32(PNG_FORMAT_GRAY)
        }
        // Worst case for stored (incompressible) zlib blocks: the filtered rows plus 5 bytes a block, plus chunks.
        let rawSize = height * (width + 1)
        var capacity = rawSize + (rawSize / 16_384 + 1) * 5 + 1_024
        var output: [UInt8] = []
        for _ in 0..<2 {
            let offered = capacity
            writer.image.pointee.warning_or_error = 0
            output = [UInt8](repeating: 0, count: offered)
            let written = output.withUnsafeMutableBytes { out in
                samples.withUnsafeBytes { input in
                    colormap.withUnsafeMutableBytes { map in
                        png_image_write_to_memory(
                            writer.image, out.baseAddress, &capacity, 0, input.baseAddress, Int32(width),
                            bilevel ? map.baseAddress : nil)
                    }
                }
            }
            if written != 0, airlock_png_image_failed(writer.image) == 0 {
                output.removeSubrange(capacity...)
                return output
            }
            // libpng raises `capacity` to what it needs when only the buffer was too small; try once more with that.
            guard capacity > offered else { break }
        }
        throw .pngWriteFailed(message: writer.message)
    }
}

/// Owns one libpng simplified-API `png_image` and its control data, freed on every path, errors included.
///
/// The `png_image` lives at a fixed heap address for the reader's whole life: libpng's error handler keeps a pointer
/// to it between `begin_read` and `finish_read`, so it must never be a Swift temporary.
private final class PNGControl {
    let image: UnsafeMutablePointer<png_image>

    init() {
        image = .allocate(capacity: 1)
        image.initialize(to: png_image())
        image.pointee.opaque = nil
        image.pointee.version = airlock_png_image_version()
    }

    deinit {
        png_image_free(image)
        image.deinitialize(count: 1)
        image.deallocate()
    }

    /// libpng's message for the last failure, or a generic one when it left none.
    var message: String {
        let text = withUnsafeBytes(of: image.pointee.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "libpng reported a failure without a message" : text
    }
}
