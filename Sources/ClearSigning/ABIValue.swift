public import Ethereum

/// A decoded ABI value: what a descriptor's paths point at.
public indirect enum ABIValue: Sendable, Equatable {
    /// An unsigned or signed integer as its 32-byte word (signed values in two's complement).
    case uint(UInt256)
    case int([UInt8])
    case address(EthereumAddress)
    case bool(Bool)
    /// `bytesN` and `bytes`.
    case bytes([UInt8])
    /// A string as its raw bytes (shown through DisplayText).
    case string([UInt8])
    case array([ABIValue])
    /// Tuple members in order, with their names.
    case tuple([(name: String, value: ABIValue)])

    public static func == (lhs: ABIValue, rhs: ABIValue) -> Bool {
        switch (lhs, rhs) {
        case (.uint(let a), .uint(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.address(let a), .address(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.bytes(let a), .bytes(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.tuple(let a), .tuple(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        default: false
        }
    }

    /// The value as an unsigned integer, where it is one (uint, a non-negative int, an address, a bool, short bytes).
    var integer: UInt256? {
        switch self {
        case .uint(let v): v
        case .int(let word): word.first.map { $0 < 0x80 } == true ? try? UInt256(bigEndian: word) : nil
        case .address(let a): try? UInt256(bigEndian: a.bytes)
        case .bool(let b): UInt256(b ? 1 : 0)
        case .bytes(let b) where b.count <= 32: try? UInt256(bigEndian: b)
        default: nil
        }
    }

    /// The value as an address (an address, or a word whose top 12 bytes are zero).
    var addressValue: EthereumAddress? {
        switch self {
        case .address(let a): a
        case .uint(let v):
            v.bigEndianBytes.prefix(12).allSatisfy { $0 == 0 }
                ? try? EthereumAddress(bytes: v.bigEndianBytes.suffix(20)) : nil
        case .bytes(let b) where b.count == 20: try? EthereumAddress(bytes: b)
        case .bytes(let b) where b.count == 32 && b.prefix(12).allSatisfy({ $0 == 0 }):
            try? EthereumAddress(bytes: b.suffix(20))
        default: nil
        }
    }
}

/// Decodes ABI-encoded arguments by the types of a descriptor's signature (the standard head/tail encoding).
public enum ABIDecoder {
    /// The arguments of `calldata` (selector included) by `function`; the selector must match.
    public static func decodeCall(_ calldata: [UInt8], function: ABIFunction) throws(ClearSigningError) -> ABIValue {
        guard calldata.count >= 4, Array(calldata.prefix(4)) == function.selector else {
            throw .invalidCalldata("the call's selector is not the one of \(function.canonical)")
        }
        return try decodeTuple(Array(calldata.dropFirst(4)), members: function.parameters)
    }

    /// A tuple of `members` encoded at the start of `data`.
    public static func decodeTuple(_ data: [UInt8], members: [ABIParameter]) throws(ClearSigningError) -> ABIValue {
        var reader = Reader(data: data, depth: 0)
        return try reader.tuple(members, base: 0)
    }

    struct Reader {
        let data: [UInt8]
        var depth: Int

        func word(at offset: Int) throws(ClearSigningError) -> [UInt8] {
            guard offset >= 0, offset <= data.count - 32 else {
                throw .invalidCalldata("the call data ends before its arguments do")
            }
            return Array(data[offset..<offset + 32])
        }

        func offset(at position: Int, base: Int) throws(ClearSigningError) -> Int {
            let w = try word(at: position)
            guard w.prefix(24).allSatisfy({ $0 == 0 }) else {
                throw .invalidCalldata("an argument offset is out of range")
            }
            let value = w.suffix(8).reduce(0) { $0 << 8 | Int($1) }
            guard value >= 0, value <= data.count, base + value <= data.count else {
                throw .invalidCalldata("an argument offset points past the end of the call data")
            }
            return base + value
        }

        mutating func tuple(_ members: [ABIParameter], base: Int) throws(ClearSigningError) -> ABIValue {
            var head = base
            var values: [(name: String, value: ABIValue)] = []
            for member in members {
                let value: ABIValue
                if member.type.isDynamic {
                    value = try self.value(member.type, at: offset(at: head, base: base))
                    head += 32
                } else {
                    value = try self.value(member.type, at: head)
                    head += 32 * member.type.headWords
                }
                values.append((member.name, value))
            }
            return .tuple(values)
        }

        mutating func value(_ type: ABIType, at position: Int) throws(ClearSigningError) -> ABIValue {
            depth += 1
            defer { depth -= 1 }
            guard depth <= 16 else { throw .invalidCalldata("the arguments nest too deep") }
            switch type {
            case .uint(let bits):
                let w = try word(at: position)
                guard w.prefix(32 - bits / 8).allSatisfy({ $0 == 0 }) else {
                    throw .invalidCalldata("a uint\(bits) argument is wider than its type")
                }
                return .uint((try? UInt256(bigEndian: w)) ?? .zero)
            case .int:
                return .int(try word(at: position))
            case .address:
                let w = try word(at: position)
                guard w.prefix(12).allSatisfy({ $0 == 0 }) else {
                    throw .invalidCalldata("an address argument has bits above its 20 bytes")
                }
                guard let address = try? EthereumAddress(bytes: w.suffix(20)) else {
                    throw .invalidCalldata("an address argument cannot be read")
                }
                return .address(address)
            case .bool:
                let w = try word(at: position)
                guard w.prefix(31).allSatisfy({ $0 == 0 }), w[31] <= 1 else {
                    throw .invalidCalldata("a bool argument is neither 0 nor 1")
                }
                return .bool(w[31] == 1)
            case .fixedBytes(let n):
                return .bytes(Array(try word(at: position).prefix(n)))
            case .bytes, .string:
                let length = try offset(at: position, base: 0)
                let start = position + 32
                guard length <= data.count, start + length <= data.count else {
                    throw .invalidCalldata("a bytes argument runs past the end of the call data")
                }
                let raw = Array(data[start..<start + length])
                return type == .string ? .string(raw) : .bytes(raw)
            case .array(let element, let count):
                var start = position
                let n: Int
                if let count {
                    n = count
                } else {
                    n = try offset(at: position, base: 0)
                    start += 32
                }
                guard n <= data.count / 32 + 1 else {
                    throw .invalidCalldata("an array argument is longer than the call data")
                }
                var items: [ABIValue] = []
                var head = start
                for _ in 0..<n {
                    if element.isDynamic {
                        items.append(try value(element, at: offset(at: head, base: start)))
                        head += 32
                    } else {
                        items.append(try value(element, at: head))
                        head += 32 * element.headWords
                    }
                }
                return .array(items)
            case .tuple(let members):
                return try tuple(members, base: position)
            }
        }
    }
}
