/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), the checksum bytewords and fountain parts carry.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-012-bytewords.md
package enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// Returns the CRC-32 of `bytes`, as zlib's `crc32` computes it.
    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// Returns the CRC-32 of `bytes` as four big-endian bytes.
    package static func bigEndianBytes(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        let c = checksum(bytes)
        return [UInt8(c >> 24), UInt8((c >> 16) & 0xFF), UInt8((c >> 8) & 0xFF), UInt8(c & 0xFF)]
    }
}
