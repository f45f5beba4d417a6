// FuzzPNG: libFuzzer target feeding arbitrary bytes to QRImage's PNG reader (libpng simplified API, then zbar).
// Every input must end in codes or a typed QRImageError, never a crash, a sanitizer report or a huge allocation.
import QRImage

// 1 megapixel caps each input's pixel buffer at 1 MB: big declared sizes cost time, not coverage.
nonisolated(unsafe) private let reader: QRReader? = try? QRReader(maxPixels: 1_000_000)

extension FuzzTargets {
    /// One input of FuzzPNG.
    public static func png(_ bytes: [UInt8]) {
        guard let reader else { preconditionFailure("QRReader does not start") }
        // Each input is read twice: as given (CRC checks included), and with every chunk CRC recomputed, so that
        // mutations of chunk contents get past libpng's CRC check and reach the decoder and zbar.
        _ = try? reader.read(png: bytes)
        let fixed = withFixedCRCs(bytes)
        if fixed != bytes { _ = try? reader.read(png: fixed) }
    }
}

/// `bytes` with the CRC of every complete chunk after the 8-byte signature set to the right value.
private func withFixedCRCs(_ bytes: [UInt8]) -> [UInt8] {
    var out = bytes
    var offset = 8
    while offset + 12 <= out.count {
        let length = out[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let end = offset + 8 + length
        guard length <= out.count, end + 4 <= out.count else { break }
        let crc = crc32(out[(offset + 4)..<end])
        for index in 0..<4 { out[end + index] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(index))) }
        offset = end + 4
    }
    return out
}

/// CRC-32 (ISO 3309), as PNG chunks use it.
private func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
