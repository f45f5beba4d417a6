/// An 8-bit grayscale raster, row by row, 0 black to 255 white: the one pixel format QRImage draws and scans.
struct GrayImage: Sendable, Equatable {
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// `width * height` luminance samples, top row first.
    var pixels: [UInt8]

    /// A `width` × `height` image filled with `value`.
    init(width: Int, height: Int, filledWith value: UInt8 = 255) {
        self.width = width
        self.height = height
        self.pixels = [UInt8](repeating: value, count: width * height)
    }

    /// An image over existing samples; `pixels.count` must be `width * height`.
    init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "GrayImage: sample count does not match its size")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The sample at column `x`, row `y`.
    subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }

    /// Fills the rectangle at (`x`, `y`) of `width` × `height` with `value`, clipped to the image.
    mutating func fill(x: Int, y: Int, width w: Int, height h: Int, value: UInt8) {
        let x0 = max(0, x)
        let y0 = max(0, y)
        let x1 = min(width, x + w)
        let y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        pixels.withUnsafeMutableBufferPointer { buffer in
            for row in y0..<y1 {
                let start = row * width
                for column in x0..<x1 { buffer[start + column] = value }
            }
        }
    }

    /// Copies `other` into this image with its top-left corner at (`x`, `y`), clipped to the image.
    mutating func draw(_ other: GrayImage, x: Int, y: Int) {
        for row in 0..<other.height where y + row >= 0 && y + row < height {
            for column in 0..<other.width where x + column >= 0 && x + column < width {
                self[x + column, y + row] = other[column, row]
            }
        }
    }
}
