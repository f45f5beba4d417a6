/// Small helpers to read registry maps with typed errors.
struct RegistryReader {
    let type: String

    func fail(_ reason: String) -> URError { .invalidRegistryItem(type: type, reason: reason) }

    func map(_ item: CBOR, context: String) throws(URError) -> CBOR {
        guard case .map(let entries) = item else { throw fail("\(context) is not a map") }
        for entry in entries {
            guard case .unsigned = entry.key else { throw fail("\(context) has a non-integer key") }
        }
        return item
    }

    func untag(_ item: CBOR, _ tags: [UInt64], context: String) throws(URError) -> CBOR {
        guard case .tagged(let tag, let inner) = item, tags.contains(tag) else {
            throw fail("\(context) is not tagged \(tags.map(String.init).joined(separator: " or "))")
        }
        return inner
    }

    func uint32(_ item: CBOR?, context: String) throws(URError) -> UInt32? {
        guard let item else { return nil }
        guard case .unsigned(let v) = item, v <= UInt64(UInt32.max) else { throw fail("\(context) is not a uint32") }
        return UInt32(v)
    }

    func bool(_ item: CBOR?, context: String) throws(URError) -> Bool? {
        guard let item else { return nil }
        guard case .bool(let b) = item else { throw fail("\(context) is not a boolean") }
        return b
    }

    func bytes(_ item: CBOR?, context: String) throws(URError) -> [UInt8]? {
        guard let item else { return nil }
        guard case .bytes(let b) = item else { throw fail("\(context) is not a byte string") }
        return b
    }

    func text(_ item: CBOR?, context: String) throws(URError) -> String? {
        guard let item else { return nil }
        guard case .text(let t) = item else { throw fail("\(context) is not a text string") }
        return t
    }
}
