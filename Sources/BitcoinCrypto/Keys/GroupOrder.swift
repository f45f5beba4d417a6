/// The order n of the secp256k1 group, and reduction of a 32-byte big-endian number modulo it: what BIP327's KeyAgg
/// coefficients and the anti-exfil host check (`r` is x(R) mod n) both need.
public enum GroupOrder {
    /// n, big-endian.
    public static let bytes: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,
        0xBA, 0xAE, 0xDC, 0xE6, 0xAF, 0x48, 0xA0, 0x3B, 0xBF, 0xD2, 0x5E, 0x8C, 0xD0, 0x36, 0x41, 0x41,
    ]

    /// `value` (32 bytes, big-endian) reduced modulo n; since n > 2^255, at most one subtraction is needed.
    public static func reduced(_ value: [UInt8]) -> [UInt8] {
        precondition(value.count == 32, "a 32-byte number")
        guard !value.lexicographicallyPrecedes(bytes) else { return value }
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var difference = Int(value[index]) - Int(bytes[index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            result[index] = UInt8(difference)
        }
        return result
    }
}
