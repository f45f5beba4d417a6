/// A Bitcoin script: the raw bytes, which may be malformed (a script is consensus data, parsed only when needed).
///
/// - SeeAlso: https://en.bitcoin.it/wiki/Script
public struct Script: Hashable, Sendable {
    /// The script bytes.
    public let bytes: [UInt8]

    /// Hashes the length and the bytes in one call.
    ///
    /// An array hashes itself a byte at a time (issue 33: the sync's maps by script). Equal scripts still hash
    /// alike.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    /// The largest stack element consensus allows a push to create.
    public static let maxElementSize = 520

    /// The script with these bytes (not validated; `operations()` parses them).
    public init(_ bytes: some Sequence<UInt8>) { self.bytes = Array(bytes) }

    /// The script of hex text.
    ///
    /// - Throws: `EncodingError.oddLength` or `.invalidCharacter`.
    public init(hex: String) throws(EncodingError) { self.bytes = try [UInt8](hex: hex) }

    /// The script that runs `operations` in order, each push written with the opcode it names.
    public init(_ operations: [ScriptOperation]) {
        var out: [UInt8] = []
        for operation in operations { operation.append(to: &out) }
        self.bytes = out
    }

    /// An empty script.
    public static let empty = Script([UInt8]())

    /// Lower-case hex of the bytes.
    public var hexString: String { bytes.hexString }
    /// Whether the script has no bytes.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The script parsed into operations.
    ///
    /// - Throws: `ScriptError.truncatedPush` when a push runs past the end.
    public func operations() throws(ScriptError) -> [ScriptOperation] {
        var out: [ScriptOperation] = []
        var offset = 0
        while offset < bytes.count {
            let (operation, next) = try Self.operation(in: bytes, at: offset)
            out.append(operation)
            offset = next
        }
        return out
    }

    /// The operations with the byte offset each starts at, as far as the script parses; `complete` is false when it
    /// ends in a truncated push (Bitcoin Core's GetScriptOp stops there too).
    func operationsWithOffsets() -> (operations: [(offset: Int, operation: ScriptOperation)], complete: Bool) {
        var out: [(offset: Int, operation: ScriptOperation)] = []
        var offset = 0
        while offset < bytes.count {
            guard let (operation, next) = try? Self.operation(in: bytes, at: offset) else { return (out, false) }
            out.append((offset, operation))
            offset = next
        }
        return (out, true)
    }

    /// Parses the operation at `offset`, returning it and the offset after it.
    static func operation(in bytes: [UInt8], at offset: Int) throws(ScriptError) -> (ScriptOperation, Int) {
        let opcode = Opcode(rawValue: bytes[offset])
        var cursor = offset + 1
        let length: Int
        switch opcode.rawValue {
        case 0x00: return (.push(opcode, []), cursor)
        case 0x01...0x4B: length = Int(opcode.rawValue)
        case 0x4C, 0x4D, 0x4E:
            let width = opcode.rawValue == 0x4C ? 1 : opcode.rawValue == 0x4D ? 2 : 4
            guard bytes.count - cursor >= width else {
                throw .truncatedPush(offset: offset, needed: width, available: bytes.count - cursor)
            }
            var value = 0
            for i in 0..<width { value |= Int(bytes[cursor + i]) << (8 * i) }
            cursor += width
            length = value
        default: return (.op(opcode), cursor)
        }
        guard bytes.count - cursor >= length else {
            throw .truncatedPush(offset: offset, needed: length, available: bytes.count - cursor)
        }
        return (.push(opcode, Array(bytes[cursor..<cursor + length])), cursor + length)
    }
}

extension Script: CustomStringConvertible {
    /// The script in Bitcoin Core's assembly notation; pushes as hex, a truncated push as `[error]`.
    public var description: String {
        let (operations, complete) = operationsWithOffsets()
        var parts = operations.map { element -> String in
            switch element.operation {
            case .push(let opcode, let data): opcode.rawValue == 0 ? "0" : data.hexString
            case .op(let opcode): opcode.description
            }
        }
        if !complete { parts.append("[error]") }
        return parts.joined(separator: " ")
    }
}
