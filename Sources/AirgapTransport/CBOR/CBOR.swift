/// A CBOR data item from the deterministic subset BC-UR uses: integers, byte and text strings, arrays, maps, tags,
/// and the simple values false, true and null.
///
/// - SeeAlso: https://www.rfc-editor.org/rfc/rfc8949.html#section-4.2
package indirect enum CBOR: Equatable, Sendable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3.
    case text(String)
    /// Major type 4.
    case array([CBOR])
    /// Major type 5, entries in their encoded order.
    case map([CBORMapEntry])
    /// Major type 6.
    case tagged(UInt64, CBOR)
    /// Simple values 20 and 21.
    case bool(Bool)
    /// Simple value 22.
    case null
}

/// One key/value pair of a CBOR map.
package struct CBORMapEntry: Equatable, Sendable {
    package let key: CBOR
    package let value: CBOR

    package init(_ key: CBOR, _ value: CBOR) {
        self.key = key
        self.value = value
    }
}

extension CBOR {
    /// The deepest nesting of arrays, maps and tags the decoder accepts.
    package static let maxDepth = 32

    /// A map from unsigned keys, the shape every UR registry type uses.
    package static func intMap(_ entries: [(UInt64, CBOR?)]) -> CBOR {
        .map(entries.compactMap { key, value in value.map { CBORMapEntry(.unsigned(key), $0) } })
    }

    /// The value for unsigned key `key` in a map, or nil.
    package subscript(key: UInt64) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.key == .unsigned(key) }?.value
    }
}
