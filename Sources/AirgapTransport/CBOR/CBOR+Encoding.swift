extension CBOR {
    /// Returns the deterministic encoding: shortest heads, definite lengths, map keys sorted bytewise.
    ///
    /// - SeeAlso: https://www.rfc-editor.org/rfc/rfc8949.html#section-4.2.1
    package func serialized() -> [UInt8] {
        var out: [UInt8] = []
        encode(to: &out)
        return out
    }

    private func encode(to out: inout [UInt8]) {
        switch self {
        case .unsigned(let n): Self.writeHead(major: 0, value: n, to: &out)
        case .negative(let n): Self.writeHead(major: 1, value: n, to: &out)
        case .bytes(let b):
            Self.writeHead(major: 2, value: UInt64(b.count), to: &out)
            out.append(contentsOf: b)
        case .text(let s):
            let utf8 = Array(s.utf8)
            Self.writeHead(major: 3, value: UInt64(utf8.count), to: &out)
            out.append(contentsOf: utf8)
        case .array(let items):
            Self.writeHead(major: 4, value: UInt64(items.count), to: &out)
            for item in items { item.encode(to: &out) }
        case .map(let entries):
            Self.writeHead(major: 5, value: UInt64(entries.count), to: &out)
            let encoded = entries.map { ($0.key.serialized(), $0.value.serialized()) }
            for (key, value) in encoded.sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
                out.append(contentsOf: key)
                out.append(contentsOf: value)
            }
        case .tagged(let tag, let item):
            Self.writeHead(major: 6, value: tag, to: &out)
            item.encode(to: &out)
        case .bool(let b): out.append(b ? 0xF5 : 0xF4)
        case .null: out.append(0xF6)
        }
    }

    private static func writeHead(major: UInt8, value: UInt64, to out: inout [UInt8]) {
        let m = major << 5
        switch value {
        case 0..<24: out.append(m | UInt8(value))
        case 24...0xFF: out.append(contentsOf: [m | 24, UInt8(value)])
        case 0x100...0xFFFF: out.append(contentsOf: [m | 25, UInt8(value >> 8), UInt8(value & 0xFF)])
        case 0x1_0000...0xFFFF_FFFF:
            out.append(m | 26)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
        default:
            out.append(m | 27)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((value >> UInt64(shift)) & 0xFF)) }
        }
    }
}
