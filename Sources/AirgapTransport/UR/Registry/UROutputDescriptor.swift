/// An output descriptor as the 2023 `output-descriptor` type carries it: descriptor text with `@0`, `@1`… placeholders
/// and the keys they stand for.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2023-010-output-descriptor.md
public struct UROutputDescriptor: Equatable, Sendable {
    /// The descriptor text with `@n` placeholders, such as `wpkh(@0)`.
    public var source: String
    /// The keys, `@0` first.
    public var keys: [URKey]
    /// Optional name.
    public var name: String?
    /// Optional note.
    public var note: String?

    public init(source: String, keys: [URKey], name: String? = nil, note: String? = nil) {
        self.source = source
        self.keys = keys
        self.name = name
        self.note = note
    }

    /// The descriptor text with each `@n` replaced by `renderKey(keys[n])`; an `@n` without a key stays as it is.
    public func descriptorText(renderKey: (URKey) -> String) -> String {
        var out = ""
        var chars = source[...]
        while let c = chars.popFirst() {
            guard c == "@" else {
                out.append(c)
                continue
            }
            let digits = chars.prefix { $0.isASCII && $0.isNumber }
            chars = chars.dropFirst(digits.count)
            if digits.count <= 4, let index = Int(digits), index < keys.count {
                out += renderKey(keys[index])
            } else {
                out += "@" + digits
            }
        }
        return out
    }

    /// The CBOR (untagged).
    public func serialized() -> [UInt8] { cbor().serialized() }

    /// Decodes the CBOR of a `ur:output-descriptor`.
    ///
    /// - Throws: `URError.cbor` or `.invalidRegistryItem`.
    public init(serialized bytes: [UInt8]) throws(URError) {
        let item: CBOR
        do { item = try CBOR(serialized: bytes) } catch { throw .cbor(error) }
        try self.init(cbor: item, reader: RegistryReader(type: "output-descriptor"))
    }

    func cbor() -> CBOR {
        .intMap([
            (1, .text(source)), (2, keys.isEmpty ? nil : .array(keys.map { $0.cbor(tags: .v2) })),
            (3, name.map { .text($0) }), (4, note.map { .text($0) }),
        ])
    }

    init(cbor item: CBOR, reader r: RegistryReader) throws(URError) {
        let m = try r.map(item, context: "output-descriptor")
        guard let source = try r.text(m[1], context: "source") else { throw r.fail("missing source text") }
        var keys: [URKey] = []
        if let list = m[2] {
            guard case .array(let items) = list else { throw r.fail("keys is not an array") }
            for key in items { keys.append(try URKey(cbor: key, reader: r)) }
        }
        self.source = source
        self.keys = keys
        name = try r.text(m[3], context: "name")
        note = try r.text(m[4], context: "note")
    }
}
