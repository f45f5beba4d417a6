/// One key-value record of a PSBT map, kept byte for byte.
public struct PSBTEntry: Sendable, Hashable {
    /// The whole key: key type (compact size) followed by key data.
    public let key: [UInt8]
    /// The value bytes.
    public var value: [UInt8]
    /// The key type, decoded from the start of `key`.
    public let keyType: UInt64
    /// The key data (the key without its type prefix).
    public let keyData: [UInt8]

    /// An entry with `key` (type prefix included) and `value`.
    ///
    /// - Throws: `PSBTError.truncated` when the key has no valid type prefix.
    public init(key: [UInt8], value: [UInt8]) throws(PSBTError) {
        var reader = ByteReader(key)
        guard let type = try? reader.readCompactSize() else { throw .truncated(offset: 0) }
        self.key = key
        self.value = value
        self.keyType = type
        self.keyData = Array(key[reader.offset...])
    }

    /// An entry of `type` with `keyData` and `value`.
    public init(type: UInt64, keyData: [UInt8] = [], value: [UInt8]) {
        var writer = ByteWriter()
        writer.writeCompactSize(type)
        writer.write(keyData)
        self.key = writer.bytes
        self.value = value
        self.keyType = type
        self.keyData = keyData
    }
}

/// A PSBT map: its entries in the order they were read (or in Bitcoin Core's order once changed), so that a PSBT
/// nobody changed serializes byte for byte as it came, unknown and proprietary fields included.
public struct PSBTMap: Sendable, Hashable {
    /// The records, in order.
    public var entries: [PSBTEntry]

    /// A map holding `entries`.
    public init(_ entries: [PSBTEntry] = []) { self.entries = entries }

    /// The first entry of `type` (and `keyData`, when given).
    public func entry(_ type: UInt64, keyData: [UInt8]? = nil) -> PSBTEntry? {
        entries.first { $0.keyType == type && (keyData == nil || $0.keyData == keyData) }
    }

    /// The value of the entry of `type` with empty key data.
    public func value(_ type: UInt64) -> [UInt8]? { entry(type, keyData: [])?.value }

    /// All entries of `type`.
    public func entries(_ type: UInt64) -> [PSBTEntry] { entries.filter { $0.keyType == type } }

    /// Whether an entry of `type` exists.
    public func contains(_ type: UInt64) -> Bool { entries.contains { $0.keyType == type } }

    /// Sets (replaces or adds) the entry of `type` with `keyData` to `value`.
    public mutating func set(_ type: UInt64, keyData: [UInt8] = [], value: [UInt8]) {
        let entry = PSBTEntry(type: type, keyData: keyData, value: value)
        if let index = entries.firstIndex(where: { $0.key == entry.key }) {
            entries[index] = entry
        } else {
            entries.append(entry)
        }
    }

    /// Removes every entry of `type` (with `keyData`, when given).
    public mutating func remove(_ type: UInt64, keyData: [UInt8]? = nil) {
        entries.removeAll { $0.keyType == type && (keyData == nil || $0.keyData == keyData) }
    }

    /// Removes every entry whose type is not in `types` and that is a known type of this map.
    mutating func keepOnly(_ types: Set<UInt64>, knownTypes: Set<UInt64>) {
        entries.removeAll { knownTypes.contains($0.keyType) && !types.contains($0.keyType) }
    }

    /// Writes the entries and the separator.
    func encode(to writer: inout ByteWriter) {
        for entry in entries {
            writer.writeVarBytes(entry.key)
            writer.writeVarBytes(entry.value)
        }
        writer.write(UInt8(0))
    }
}
