/// Hexadecimal text of bytes, the one implementation every module uses (Bitcoin's `[UInt8](hex:)` and `.hexString`,
/// Ethereum's `0x` quantities and data, the QR text forms, the server protocols).
public enum Hex {
    @usableFromInline static let lower = Array("0123456789abcdef".utf8)
    @usableFromInline static let upper = Array("0123456789ABCDEF".utf8)

    /// The lower-case hex digit of a nibble (0–15).
    @inlinable @inline(__always) static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x57 + nibble
    }

    /// Hex text of `bytes`, lower case (upper case when `uppercase`), no prefix.
    @inlinable public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? upper : lower
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Lower-case hex text of `bytes` reversed (a txid's displayed form), straight into the string's storage (the
    /// sync's and the store's hot path).
    @inlinable public static func encodeReversed(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: 2 * bytes.count) { out in
            for (i, byte) in bytes.reversed().enumerated() {
                out[2 * i] = digit(byte >> 4)
                out[2 * i + 1] = digit(byte & 0x0F)
            }
            return 2 * bytes.count
        }
    }

    /// The bytes of hex text (either case, no prefix, no spaces), in order or `reversed` (a txid's displayed form),
    /// decoded straight from the string's UTF-8 into one array.
    ///
    /// - Throws: `HexError.oddLength` or `.invalidCharacter` naming the first offending position.
    @inlinable public static func decode(_ text: String, reversed: Bool) throws(HexError) -> [UInt8] {
        var text = text
        return try text.withUTF8 { chars in decode(utf8: UnsafeRawBufferPointer(chars), reversed: reversed) }.get()
    }

    /// The bytes of an even-length hex text, either case, with or without a `0x` prefix; nil when it is not one.
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { chars in
            var raw = UnsafeRawBufferPointer(chars)
            if raw.count >= 2, raw[0] == UInt8(ascii: "0"), raw[1] == UInt8(ascii: "x") || raw[1] == UInt8(ascii: "X") {
                raw = UnsafeRawBufferPointer(rebasing: raw[2...])
            }
            return try? decode(utf8: raw, reversed: false).get()
        }
    }

    /// The bytes of hex text given as its UTF-8 bytes, in order or `reversed`; see `decode(_:reversed:)`.
    ///
    /// Sixteen digits at a time while they are all hex digits (`nibbles(_:)`, `pack(_:)`), then one pair at a time,
    /// which also finds the first character that is not one (a sync decodes some 60,000 hashes and transactions).
    @inlinable public static func decode(utf8 chars: UnsafeRawBufferPointer, reversed: Bool) -> Result<
        [UInt8], HexError
    > {
        guard chars.count % 2 == 0 else { return .failure(.oddLength(chars.count)) }
        let count = chars.count / 2
        var bad: Int?
        let bytes: [UInt8]
        if count <= 64 {
            // A hash or a key: decoded on the stack, then copied into an array made by appending (an array made
            // with `unsafeUninitializedCapacity` looks its storage type up at run time: a third of the cost of a
            // 32-byte array, and a sync decodes some 50,000 hashes).
            var stack: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
            bytes = withUnsafeMutableBytes(of: &stack) { raw -> [UInt8] in
                let out = raw.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self)
                bad = decode(chars, into: out, count: count, reversed: reversed)
                guard bad == nil else { return [] }
                var array: [UInt8] = []
                array.reserveCapacity(count)
                array.append(contentsOf: UnsafeBufferPointer(start: out, count: count))
                return array
            }
        } else {
            bytes = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                bad = decode(chars, into: out.baseAddress.unsafelyUnwrapped, count: count, reversed: reversed)
                // Bytes are trivial: on a bad character the array is thrown away, its unwritten slots never read.
                initialized = bad == nil ? count : 0
            }
        }
        if let bad { return .failure(.invalidCharacter(chars[bad], position: bad)) }
        return .success(bytes)
    }

    /// Decodes the `2 * count` hex digits of `chars` into `out`, in order or `reversed`; the offset of the first
    /// character that is not a hex digit, or nil.
    ///
    /// Sixteen digits at a time while they are all hex digits (`nibbles(_:)`, `pack(_:)`), then one pair at a time,
    /// which also finds the first character that is not one.
    @inlinable static func decode(
        _ chars: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>, count: Int, reversed: Bool
    ) -> Int? {
        var i = 0  // the bytes written
        if let base = chars.baseAddress {
            while count - i >= 8 {
                let first = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 2 * i, as: UInt64.self))
                let second = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 2 * i + 8, as: UInt64.self))
                guard let x = nibbles(first), let y = nibbles(second) else { break }
                let eight = UInt64(pack(x)) | UInt64(pack(y)) << 32
                if reversed {
                    UnsafeMutableRawPointer(out).storeBytes(
                        of: eight.byteSwapped.littleEndian, toByteOffset: count - 8 - i, as: UInt64.self)
                } else {
                    UnsafeMutableRawPointer(out).storeBytes(of: eight.littleEndian, toByteOffset: i, as: UInt64.self)
                }
                i += 8
            }
        }
        return nibbles.withUnsafeBufferPointer { table -> Int? in
            while i < count {
                let high = table[Int(chars[2 * i])]
                let low = table[Int(chars[2 * i + 1])]
                guard high | low < 16 else { return high < 16 ? 2 * i + 1 : 2 * i }
                out[reversed ? count - 1 - i : i] = high << 4 | low
                i += 1
            }
            return nil
        }
    }

    /// The values of eight hex digits (a word of text, first character in the low byte), a byte each; nil when any
    /// byte is not a hex digit of either case.
    ///
    /// A byte of `w` below 0x80 is in `lo...hi` when `b + (0x80 - lo)` has its high bit set and `b + (0x7F - hi)`
    /// has not (no carry crosses bytes below 0x80). A digit's value is its low nibble, a letter's its low nibble
    /// plus 9 (bit 6 tells letters, `a` and `A` alike, from digits).
    @inlinable @inline(__always) static func nibbles(_ w: UInt64) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high = ones &* 0x80
        guard w & high == 0 else { return nil }
        let digit = (w &+ ones &* (0x80 - 0x30)) & ~(w &+ ones &* (0x7F - 0x39)) & high
        let folded = w | (ones &* 0x20)
        let letter = (folded &+ ones &* (0x80 - 0x61)) & ~(folded &+ ones &* (0x7F - 0x66)) & high
        guard digit | letter == high else { return nil }
        return (w & (ones &* 0x0F)) &+ ((w >> 6) & ones) &* 9
    }

    /// Eight digit values (`nibbles(_:)`) as the four bytes they spell, the first in the low byte.
    @inlinable @inline(__always) static func pack(_ n: UInt64) -> UInt32 {
        let evenBytes: UInt64 = 0x00FF_00FF_00FF_00FF
        var t = ((n & evenBytes) << 4) | ((n >> 8) & evenBytes)
        t = (t | (t >> 8)) & 0x0000_FFFF_0000_FFFF
        t = (t | (t >> 16)) & 0xFFFF_FFFF
        return UInt32(truncatingIfNeeded: t)
    }

    /// Whether `text` is non-empty, of even length and made only of hex digits (no prefix).
    public static func isHex(_ text: String) -> Bool {
        let chars = text.utf8
        return !chars.isEmpty && chars.count % 2 == 0 && chars.allSatisfy { nibble($0) != nil }
    }

    /// Each byte's value as a hex digit, or 0xFF.
    @usableFromInline static let nibbles: [UInt8] = (0...255).map { nibble(UInt8($0)) ?? 0xFF }

    /// The value of a hex digit (either case), or nil.
    @inlinable @inline(__always)
    public static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}

/// Why hex text was refused.
public enum HexError: Error, Equatable, Sendable {
    /// An odd number of digits (the count).
    case oddLength(Int)
    /// A byte that is not a hex digit, and its offset.
    case invalidCharacter(UInt8, position: Int)
}
