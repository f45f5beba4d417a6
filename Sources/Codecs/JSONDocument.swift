/// A JSON text parsed by the one strict parser (`JSONParser`: what `JSONValue(json:)` refuses, this refuses, with the
/// same error) and read in place: its values are positions in its bytes, and a string, a number or a container
/// becomes a Swift value only when asked (`JSONElement.value`, `.string`).
///
/// For the watcher's sync, which reads tens of thousands of server answers and keeps a few fields of each: a
/// `JSONValue` tree made a `String` of every hash and name and an array of every object, then freed them (issue 33:
/// a tenth of the sync's client CPU).
public final class JSONDocument: Sendable {
    let bytes: [UInt8]
    let tape: JSONTape

    /// Parses UTF-8 JSON text, strictly, as `JSONValue(json:)` does.
    ///
    /// - Throws: `JSONError`, the same as `JSONValue(json:)` for the same bytes.
    public init(json bytes: some Collection<UInt8>) throws(JSONError) {
        let owned = Array(bytes)
        tape = try owned.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) in try JSONParser.parse(buffer) }
        }.get()
        self.bytes = owned
    }

    /// The text's value.
    public var root: JSONElement { JSONElement(document: self, index: 0) }
}

/// One value of a `JSONDocument`, read in place; its accessors answer as `JSONValue`'s do for the same value.
public struct JSONElement: Sendable {
    /// The document it is in (kept alive by the element).
    public let document: JSONDocument
    let index: Int

    @inline(__always) var node: JSONNode { document.tape.nodes[index] }

    /// The value as a `JSONValue` (everything inside it made).
    public var value: JSONValue {
        document.bytes.withUnsafeBufferPointer { document.tape.value(at: index, in: $0) }
    }

    /// Whether this is `null`.
    public var isNull: Bool { node.kind == .null }

    /// The text of a string, or nil.
    public var string: String? {
        guard node.kind == .string else { return nil }
        return document.bytes.withUnsafeBufferPointer { document.tape.string(at: index, in: $0) }
    }

    /// `body` on the UTF-8 bytes of a string's text (in place when it has no escape), or nil when this is not a
    /// string.
    public func withUTF8<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R? {
        let node = node
        guard node.kind == .string else { return nil }
        if node.text == .escaped {
            var text = document.tape.strings[Int(node.extra)]
            return try text.withUTF8 { buffer in
                Result { () throws(E) in try body(UnsafeRawBufferPointer(buffer)) }
            }.get()
        }
        return try document.bytes.withUnsafeBytes { bytes in
            Result { () throws(E) in
                try body(UnsafeRawBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)]))
            }
        }.get()
    }

    /// Whether this is a string.
    public var isString: Bool { node.kind == .string }

    /// A string's text decoded as hex (`Hex.decode(utf8:reversed:)`) where it is, or nil when this is not a string:
    /// a server's hashes and transactions, with no `String` made for them.
    public func hexBytes(reversed: Bool) -> Result<[UInt8], HexError>? {
        let node = node
        guard node.kind == .string else { return nil }
        if node.text == .escaped {
            var text = document.tape.strings[Int(node.extra)]
            return text.withUTF8 { Hex.decode(utf8: UnsafeRawBufferPointer($0), reversed: reversed) }
        }
        return document.bytes.withUnsafeBytes { bytes in
            Hex.decode(
                utf8: UnsafeRawBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)]), reversed: reversed)
        }
    }

    /// Decodes a string's text, exactly `2 * out.count` hex digits, into `out` (`Hex.decode(utf8:reversed:)`) where
    /// it is; false when this is not a string, not that many digits, or not hex (`out` then holds nothing useful).
    public func decodeHex(into out: UnsafeMutableRawBufferPointer, reversed: Bool) -> Bool {
        let node = node
        guard node.kind == .string, let target = out.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return false
        }
        func decode(_ chars: UnsafeRawBufferPointer) -> Bool {
            chars.count == 2 * out.count && Hex.decode(chars, into: target, count: out.count, reversed: reversed) == nil
        }
        if node.text == .escaped {
            var text = document.tape.strings[Int(node.extra)]
            return text.withUTF8 { decode(UnsafeRawBufferPointer($0)) }
        }
        return document.bytes.withUnsafeBytes {
            decode(UnsafeRawBufferPointer(rebasing: $0[Int(node.start)..<Int(node.end)]))
        }
    }

    /// The items of an array, or nil.
    public var array: [JSONElement]? {
        let node = node
        guard node.kind == .array else { return nil }
        var items: [JSONElement] = []
        items.reserveCapacity(Int(node.start))
        var item = index + 1
        for _ in 0..<Int(node.start) {
            items.append(JSONElement(document: document, index: item))
            item = Int(document.tape.nodes[item].next)
        }
        return items
    }

    /// The member `name` of an object, or nil (also when this is not an object): names compared as their bytes,
    /// as `JSONValue`'s subscript does.
    public subscript(name: String) -> JSONElement? {
        let node = node
        guard node.kind == .object else { return nil }
        var name = name
        let tape = document.tape
        return name.withUTF8 { wanted -> JSONElement? in
            document.bytes.withUnsafeBufferPointer { bytes -> JSONElement? in
                var key = index + 1
                for _ in 0..<Int(node.start) {
                    let keyNode = tape.nodes[key]
                    var same: Bool
                    if keyNode.text == .escaped {
                        same = tape.strings[Int(keyNode.extra)].utf8.elementsEqual(wanted)
                    } else {
                        same = Int(keyNode.end - keyNode.start) == wanted.count
                        if same {
                            let start = Int(keyNode.start)
                            for i in 0..<wanted.count where bytes[start + i] != wanted[i] {
                                same = false
                                break
                            }
                        }
                    }
                    if same { return JSONElement(document: document, index: key + 1) }
                    key = Int(tape.nodes[key + 1].next)
                }
                return nil
            }
        }
    }

    /// A number whose value is an integer within ±9·10^15 (`1e3` and `5.0` count), or nil: `JSONValue.int`.
    public var int: Int? {
        let node = node
        guard node.kind == .number else { return nil }
        // A plain integer of at most 18 digits read from its bytes; anything else as `JSONValue.int` reads it.
        let short = document.bytes.withUnsafeBufferPointer { bytes -> Int? in
            let start = Int(node.start)
            let end = Int(node.end)
            let negative = bytes[start] == UInt8(ascii: "-")
            let first = negative ? start + 1 : start
            guard end > first, end - first <= 18 else { return nil }
            var value = 0
            for i in first..<end {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int(digit)
            }
            return negative ? -value : value
        }
        if let short { return abs(short) < 9_000_000_000_000_000 ? short : nil }
        return value.int
    }
}
