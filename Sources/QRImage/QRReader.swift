import Foundation

/// Finds every QR code in PNG, JPEG and GIF images: libpng, libjpeg-turbo or giflib decodes to 8-bit gray (every frame
/// of an animated GIF), zbar (QR only, binary mode) scans.
///
/// The first pass scans every third row and column (zbar's density 3), which finds codes with modules of 2 px or
/// more at a third of the cost of a full scan; when the smallest recurring run of dark or light pixels says the
/// modules are at least 6 px, it first scans the image reduced by an integer factor (modules still 3 px or more) at
/// density 2, a quarter to a third of the pixels, and the full-size image only if that finds nothing. When that yields no code, the reader scans every row and column, then
/// retries on cleaned-up copies, cheapest first: upscaled ×2
/// (small codes), downscaled by half (large photos), contrast-stretched, adaptively binarized, and blurred then
/// binarized (noise, JPEG artifacts). It stops at the first pass that finds a code, unless `thorough` is set, in
/// which case every pass runs and the results are merged (for sheets photographed unevenly).
///
/// A reader holds zbar scanners and is not thread-safe; use one per thread, or `readFiles(atPaths:)`.
public final class QRReader {
    /// The default largest image accepted, 100 megapixels (100 MB of gray samples).
    public static let defaultMaxPixels = 100_000_000

    /// The largest `width * height` accepted; larger headers are refused before pixels are allocated.
    public let maxPixels: Int
    /// Whether every clean-up pass runs even after one has found codes.
    public let thorough: Bool
    /// Density 3: the fast first pass.
    private let fastScanner: ZBarScanner
    /// Density 1: every row and column, for the retries.
    private let scanner: ZBarScanner
    /// Density 2: the first pass over a reduced image (3 px modules are read at density 2, not at 3).
    private let reducedScanner: ZBarScanner

    /// Creates a reader.
    ///
    /// - Parameters:
    ///   - maxPixels: the largest image accepted, at least 1.
    ///   - thorough: run every clean-up pass and merge their results instead of stopping at the first success.
    /// - Throws: `QRImageError.invalidParameter` for `maxPixels < 1`, `.scannerSetupFailed` if zbar fails.
    public init(maxPixels: Int = QRReader.defaultMaxPixels, thorough: Bool = false) throws(QRImageError) {
        guard maxPixels >= 1 else { throw .invalidParameter(name: "maxPixels", value: maxPixels) }
        self.maxPixels = maxPixels
        self.thorough = thorough
        self.fastScanner = try ZBarScanner(density: 3)
        self.scanner = try ZBarScanner(density: 1)
        self.reducedScanner = try ZBarScanner(density: 2)
    }

    /// Reads every QR code in a PNG image, in reading order (top row first, left to right).
    ///
    /// - Throws: `QRImageError.emptyInput`, `.notPNG`, `.invalidPNG`, `.imageTooLarge` for bad images,
    ///   `.noCodeFound` when no pass finds a code, `.scanFailed` on a zbar error.
    public func read(png data: [UInt8]) throws(QRImageError) -> [DecodedQRCode] {
        try read(GrayImage(png: data, maxPixels: maxPixels))
    }

    /// Reads every QR code in an image file's bytes, whatever the format: PNG, JPEG, or GIF (every frame of an
    /// animated one, each code once, in frame order; frames without a code are skipped).
    ///
    /// - Throws: `QRImageError.notAnImage` for other data, `.noCodeFound` when no frame holds a code, or any decoding
    ///   error of the format.
    public func read(image data: [UInt8]) throws(QRImageError) -> [DecodedQRCode] {
        if data.starts(with: GrayImage.pngSignature) { return try read(png: data) }
        if data.starts(with: GrayImage.jpegSignature) { return try read(GrayImage(jpeg: data, maxPixels: maxPixels)) }
        guard data.starts(with: GrayImage.gifSignature) else {
            throw data.isEmpty ? .emptyInput : .notAnImage(prefix: Array(data.prefix(8)))
        }
        let frames = try GrayImage.gifFrames(data, maxPixels: maxPixels)
        var found: [DecodedQRCode] = []
        for frame in frames {
            let codes: [DecodedQRCode]
            do throws(QRImageError) { codes = try read(frame) } catch .noCodeFound { continue }
            for code in codes where !found.contains(where: { $0.bytes == code.bytes }) { found.append(code) }
        }
        guard !found.isEmpty else {
            throw .noCodeFound(width: frames.first?.width ?? 0, height: frames.first?.height ?? 0)
        }
        return found
    }

    /// Reads every QR code in an 8-bit gray raster (`width * height` samples, top row first), such as a video frame.
    ///
    /// A frame of 640 × 360 pixels or more is first scanned in crops around its busy regions (clusters of sharp
    /// light–dark steps both across and down, the texture of a code's modules; `GrayImage.busyRegions`), and in
    /// full, with every pass of `read(image:)`, only when those crops hold no code. A camera frame's code covers a
    /// fraction of it, so zbar scans a fraction of the pixels; a code in a region the finder missed is then not read
    /// if another region held one (an animated code shows one code a frame).
    ///
    /// - Parameters:
    ///   - pixels: `width * height` gray samples.
    ///   - width: the frame's width in pixels.
    ///   - height: the frame's height in pixels.
    ///   - busyRegionsFirst: true (the default) scans crops around the frame's busy regions first (docs/qr.md);
    ///     false scans the whole frame at once, as an image file is scanned (the camera bench's `--whole-frame`).
    /// - Returns: the codes, in reading order, with bounds in the frame's pixels.
    /// - Throws: `QRImageError.invalidParameter` when the sample count does not match, `.imageTooLarge`,
    ///   `.noCodeFound`, `.scanFailed`.
    public func read(
        gray pixels: [UInt8], width: Int, height: Int, busyRegionsFirst: Bool = true
    ) throws(QRImageError) -> [DecodedQRCode] {
        guard width > 0, height > 0, pixels.count == width * height else {
            throw .invalidParameter(name: "pixels", value: pixels.count)
        }
        guard pixels.count <= maxPixels else {
            throw .imageTooLarge(width: width, height: height, maxPixels: maxPixels)
        }
        let image = GrayImage(width: width, height: height, pixels: pixels)
        if busyRegionsFirst, let found = try readBusyRegions(image) { return found }
        return try read(image)
    }

    /// The boxes `read(gray:width:height:)` scans first in a frame, largest cluster first (empty for a frame under
    /// 640 × 360): for looking at what the region finder sees (the camera bench's `--regions`).
    public static func busyRegions(gray pixels: [UInt8], width: Int, height: Int) -> [QRBounds] {
        guard width > 0, height > 0, pixels.count == width * height, width * height >= busyRegionMinimumPixels
        else { return [] }
        return GrayImage(width: width, height: height, pixels: pixels).busyRegions()
    }

    /// The smallest frame whose busy regions are scanned first (640 × 360): below it a whole scan is cheap anyway.
    static let busyRegionMinimumPixels = 640 * 360

    /// The codes in `image`'s busy regions, each scanned alone; nil when they hold none, or the frame is small, or
    /// the reader is thorough.
    ///
    /// Regions are taken largest first; once one held a code, regions under a quarter of its size are skipped (the
    /// fragments of text beside a phone's code). A crop is scanned reduced at density 2 when its modules are large,
    /// else at density 2 and then at density 1:
    /// a camera's blurred 3.5–4.5 px modules are missed at density 3 (zbarimg reads 2 of the camera bench's 100
    /// frames at density 3), and a crop is a fifth of the frame or less, so its full scan is cheaper than a whole
    /// frame's density-3 pass.
    func readBusyRegions(_ image: GrayImage) throws(QRImageError) -> [DecodedQRCode]? {
        guard !thorough, image.width * image.height >= Self.busyRegionMinimumPixels else { return nil }
        var found: [DecodedQRCode] = []
        // A region of more than half the frame saves little: the whole-frame passes scan it.
        for region in image.busyRegions() where region.width * region.height * 2 <= image.width * image.height {
            // Once a code is read, a region under a quarter of its size is a fragment (a line of text beside it).
            if let largest = found.map({ $0.bounds.width * $0.bounds.height }).max(),
                region.width * region.height * 4 < largest
            {
                continue
            }
            let crop = image.cropped(to: region)
            var codes: [DecodedQRCode] = []
            if let factor = Self.reductionFactor(for: crop) {
                codes = try reducedScanner.scan(crop.reduced(by: factor)).map { $0.scaled(by: Double(factor)) }
            }
            if codes.isEmpty { codes = try reducedScanner.scan(crop) }
            if codes.isEmpty { codes = try scanner.scan(crop) }
            for code in codes where !found.contains(where: { $0.bytes == code.bytes }) {
                found.append(code.moved(x: region.x, y: region.y))
            }
        }
        return found.isEmpty ? nil : Self.readingOrder(found)
    }

    /// Whether `data` starts like an image this reader decodes (PNG, JPEG or GIF).
    public static func isImage(_ data: some Collection<UInt8>) -> Bool {
        let prefix = Array(data.prefix(8))
        return prefix.starts(with: GrayImage.pngSignature) || prefix.starts(with: GrayImage.jpegSignature)
            || prefix.starts(with: GrayImage.gifSignature)
    }

    /// Reads every QR code in the image file at `path` (PNG, JPEG or GIF), in reading order.
    ///
    /// - Throws: `QRImageError.fileUnreadable`, or any error of `read(image:)`.
    public func read(contentsOfFile path: String) throws(QRImageError) -> [DecodedQRCode] {
        try read(image: Self.contents(ofFile: path))
    }

    /// Reads every QR code in a decoded gray image.
    func read(_ image: GrayImage) throws(QRImageError) -> [DecodedQRCode] {
        try read(image, reduction: thorough ? nil : Self.reductionFactor(for: image))
    }

    /// Reads `image`, scanning it first reduced by `factor` when one is given (tests force a factor).
    func read(_ image: GrayImage, reduction factor: Int?) throws(QRImageError) -> [DecodedQRCode] {
        var found: [DecodedQRCode] = []
        if let factor, factor >= 2 {
            found = try reducedScanner.scan(image.reduced(by: factor)).map { $0.scaled(by: Double(factor)) }
        }
        if found.isEmpty { found = try fastScanner.scan(image) }
        if found.isEmpty || thorough {
            let full = Pass(scale: 1) { $0 }
            for pass in [full] + Self.passes(for: image) {
                let more = try scanner.scan(pass.make(image)).map { $0.scaled(by: pass.scale) }
                for code in more where !found.contains(where: { $0.isSameCode(as: code) }) { found.append(code) }
                if !found.isEmpty && !thorough { break }
            }
        }
        guard !found.isEmpty else { throw .noCodeFound(width: image.width, height: image.height) }
        return Self.readingOrder(found)
    }

    /// The smallest module, in pixels, the image keeps after the reduction.
    ///
    /// The reduced image is scanned at density 2 (every other row and column). Measured on the benchmark's version-17 UR frames (6 px modules): reduced to
    /// 3 px, zbar reads them at density 1 and 2 but not at 3; at 4 px, at all three.
    static let reducedModulePixels = 3

    /// The integer factor to shrink `image` by before the first pass, or nil to scan it at full size.
    ///
    /// zbar's cost grows with the pixels it scans, and a rendered frame (6 px modules by default) has many more
    /// pixels than it needs: the fast pass first scans the image reduced so that its smallest recurring run (the
    /// smallest module, or text and noise, which keep the factor small) stays at least `reducedModulePixels` wide.
    /// When that pass finds nothing, the full-size passes run as before, so a wrong estimate costs time, not a code.
    static func reductionFactor(for image: GrayImage) -> Int? {
        guard let run = image.smallestRecurringRun() else { return nil }
        let factor = min(8, run / reducedModulePixels)
        return factor >= 2 ? factor : nil
    }

    /// A retry pass: how to make the cleaned-up image, and the factor mapping its pixels back to the original.
    private struct Pass {
        let scale: Double
        let make: (GrayImage) -> GrayImage
    }

    /// The retry passes for `image`, cheapest and most likely first.
    private static func passes(for image: GrayImage) -> [Pass] {
        let shortSide = min(image.width, image.height)
        let longSide = max(image.width, image.height)
        var passes: [Pass] = []
        if longSide <= 1_600 {
            passes.append(Pass(scale: 0.5) { $0.upscaledTwice() })
        }
        if shortSide >= 400 {
            passes.append(Pass(scale: 2) { $0.downscaledByHalf() })
        }
        let window = max(15, min(151, shortSide / 8)) | 1
        passes.append(Pass(scale: 1) { $0.contrastStretched() })
        passes.append(Pass(scale: 1) { $0.binarized(window: window, percent: 10) })
        // Low contrast under noise: average the noise away, then a threshold just under the local mean.
        passes.append(Pass(scale: 1) { $0.boxBlurred().binarized(window: window, percent: 4, minContrast: 2) })
        if shortSide >= 400 {
            passes.append(
                Pass(scale: 2) { $0.downscaledByHalf().binarized(window: window / 2 | 1, percent: 4, minContrast: 2) })
        }
        if longSide <= 1_600 {
            passes.append(
                Pass(scale: 0.5) { $0.boxBlurred().upscaledTwice().binarized(window: window * 2 | 1, percent: 6) })
        }
        return passes
    }

    /// Codes sorted into rows (centers within half a code height of the row's first code), each row left to right.
    static func readingOrder(_ codes: [DecodedQRCode]) -> [DecodedQRCode] {
        let byTop = codes.sorted { ($0.bounds.center.y, $0.bounds.center.x) < ($1.bounds.center.y, $1.bounds.center.x) }
        var rows: [[DecodedQRCode]] = []
        for code in byTop {
            if let first = rows.last?.first,
                abs(code.bounds.center.y - first.bounds.center.y) <= first.bounds.height / 2
            {
                rows[rows.count - 1].append(code)
            } else {
                rows.append([code])
            }
        }
        return rows.flatMap { $0.sorted { $0.bounds.center.x < $1.bounds.center.x } }
    }

    /// The bytes of the file at `path`.
    static func contents(ofFile path: String) throws(QRImageError) -> [UInt8] {
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path), options: .uncached))
        } catch {
            throw .fileUnreadable(path: path, reason: (error as NSError).localizedDescription)
        }
    }
}

extension DecodedQRCode {
    /// This result with its bounds multiplied by `factor` (mapping a rescaled pass back to the original image).
    fileprivate func scaled(by factor: Double) -> DecodedQRCode {
        guard factor != 1 else { return self }
        func map(_ value: Int) -> Int { Int((Double(value) * factor).rounded()) }
        return DecodedQRCode(
            bytes: bytes,
            bounds: QRBounds(x: map(bounds.x), y: map(bounds.y), width: map(bounds.width), height: map(bounds.height)))
    }

    /// This result with its bounds moved by (`x`, `y`) (mapping a crop back to the frame it was cut from).
    fileprivate func moved(x: Int, y: Int) -> DecodedQRCode {
        DecodedQRCode(
            bytes: bytes,
            bounds: QRBounds(x: bounds.x + x, y: bounds.y + y, width: bounds.width, height: bounds.height))
    }

    /// Whether `other` is the same code found again by another pass: same payload at an overlapping place.
    fileprivate func isSameCode(as other: DecodedQRCode) -> Bool {
        bytes == other.bytes && bounds.intersects(other.bounds)
    }
}
