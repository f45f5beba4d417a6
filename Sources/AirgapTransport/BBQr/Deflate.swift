internal import CZlib

/// Raw deflate compression and inflation through zlib, for BBQr's Z encoding; each instance owns one z_stream.
///
/// - SeeAlso: https://www.zlib.net/manual.html
final class Deflate {
    /// BBQr's fixed window: `wbits = 10`, negative for a raw stream without header.
    static let windowBits: Int32 = -10
    /// Inflation stops past this many bytes (a zip-bomb bound well above BBQr's 3.4 MB maximum).
    static let maxInflatedSize = 32 * 1024 * 1024

    private var stream = z_stream()
    private let inflating: Bool

    private init(inflating: Bool) throws(BBQrError) {
        self.inflating = inflating
        let code =
            inflating
            ? airlock_inflateInit2(&stream, 15 * -1)  // a larger window accepts every stream BBQr allows
            : airlock_deflateInit2(&stream, 9, Self.windowBits, 8)
        guard code == Z_OK else { throw inflating ? .decompressionFailed("inflateInit2 \(code)") : .zlib(code: code) }
    }

    deinit {
        if inflating { _ = inflateEnd(&stream) } else { _ = deflateEnd(&stream) }
    }

    /// Returns `data` compressed as one raw deflate stream (level 9, window bits 10).
    ///
    /// - Throws: `BBQrError.zlib` with zlib's code on failure.
    static func compress(_ data: [UInt8]) throws(BBQrError) -> [UInt8] {
        let z = try Deflate(inflating: false)
        var input = data
        let bound = Int(deflateBound(&z.stream, uLong(data.count))) + 16
        var output = [UInt8](repeating: 0, count: bound)
        let code: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                z.stream.next_in = inBuf.baseAddress
                z.stream.avail_in = uInt(inBuf.count)
                z.stream.next_out = outBuf.baseAddress
                z.stream.avail_out = uInt(outBuf.count)
                return deflate(&z.stream, Z_FINISH)
            }
        }
        guard code == Z_STREAM_END else { throw .zlib(code: code) }
        return Array(output.prefix(Int(z.stream.total_out)))
    }

    /// Returns the bytes of the raw deflate stream `data`; the stream must end exactly at the end of `data`.
    ///
    /// - Throws: `BBQrError.decompressionFailed` on a corrupt or truncated stream, trailing bytes or too much output.
    static func inflate(_ data: [UInt8]) throws(BBQrError) -> [UInt8] {
        let z = try Deflate(inflating: true)
        var input = data
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var finished = false
        try input.withUnsafeMutableBufferPointer { (inBuf) throws(BBQrError) in
            z.stream.next_in = inBuf.baseAddress
            z.stream.avail_in = uInt(inBuf.count)
            while !finished {
                let (code, produced) = chunk.withUnsafeMutableBufferPointer { outBuf in
                    z.stream.next_out = outBuf.baseAddress
                    z.stream.avail_out = uInt(outBuf.count)
                    let code = CZlib.inflate(&z.stream, Z_NO_FLUSH)
                    return (code, outBuf.count - Int(z.stream.avail_out))
                }
                result += chunk.prefix(produced)
                guard result.count <= maxInflatedSize else {
                    throw .decompressionFailed("inflates beyond \(maxInflatedSize) bytes")
                }
                switch code {
                case Z_STREAM_END: finished = true
                case Z_OK: continue
                case Z_BUF_ERROR:
                    // No progress possible: the input ended before the stream did.
                    guard produced > 0 else { throw .decompressionFailed("truncated deflate stream") }
                default: throw .decompressionFailed("inflate returned \(code)")
                }
            }
            guard z.stream.avail_in == 0 else {
                throw .decompressionFailed("\(z.stream.avail_in) bytes after the end of the deflate stream")
            }
        }
        return result
    }
}
