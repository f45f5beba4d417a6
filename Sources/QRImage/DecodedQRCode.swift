/// One QR code found in an image: its payload bytes and where it sits.
public struct DecodedQRCode: Sendable, Hashable {
    /// The payload exactly as encoded (zbar's binary mode: no character-set conversion).
    public let bytes: [UInt8]
    /// The axis-aligned box around the code's corner points, in pixels of the image that was read.
    public let bounds: QRBounds

    /// The payload as UTF-8 text, or `nil` when the bytes are not valid UTF-8.
    public var text: String? { String(validating: bytes, as: UTF8.self) }

    /// Creates a result from `bytes` located at `bounds`.
    init(bytes: [UInt8], bounds: QRBounds) {
        self.bytes = bytes
        self.bounds = bounds
    }
}

/// An axis-aligned pixel rectangle in an image, origin top left.
public struct QRBounds: Sendable, Hashable {
    /// Left edge (column of the leftmost point).
    public let x: Int
    /// Top edge (row of the topmost point).
    public let y: Int
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int

    /// Creates a rectangle.
    init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The center point, for ordering codes on a sheet (row by row, then by column).
    public var center: (x: Int, y: Int) { (x + width / 2, y + height / 2) }

    /// Whether the two rectangles overlap.
    func intersects(_ other: QRBounds) -> Bool {
        x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
    }
}
