import BitcoinCrypto
import Codecs

/// A transaction id: SHA-256d of the transaction without witness data.
///
/// Stored in internal byte order, shown (and
/// parsed) reversed, as block explorers and Bitcoin Core print it.
public struct Txid: Hashable, Sendable, CustomStringConvertible {
    /// The 32 hash bytes in internal (serialization) order.
    public let bytes: [UInt8]

    /// Takes 32 hash bytes in internal order.
    ///
    /// - Throws: `EncodingError.invalidLength`.
    public init(bytes: some Collection<UInt8>) throws(EncodingError) {
        guard bytes.count == 32 else { throw .invalidLength(expected: "32 bytes", actual: bytes.count) }
        self.bytes = Array(bytes)
    }

    package init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// Hashes the bytes as four integers.
    ///
    /// An array hashes itself a byte at a time, and the sync's maps and sets of txids and outpoints spent a tenth of
    /// its CPU there (issue 33). All 32 bytes are hashed, not a prefix: the txids of a server's history are its
    /// choice until each is checked against its transaction, and txids sharing a prefix would then all collide in
    /// the sync's sets, whatever the process's seed — a lying server could stall a sync with one reply. Equal txids
    /// still hash alike.
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { raw in
            if raw.count == 32 {
                hasher.combine(raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                hasher.combine(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                hasher.combine(raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
                hasher.combine(raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
            } else {
                hasher.combine(bytes: raw)
            }
        }
    }

    /// Parses the displayed (byte-reversed) hex form.
    ///
    /// - Throws: `EncodingError.oddLength`, `.invalidCharacter` or `.invalidLength`.
    public init(hex: String) throws(EncodingError) {
        try self.init(hash: [UInt8](hex: hex, reversed: true))
    }

    /// Parses the displayed hex form given as its UTF-8 bytes (a text column read in place by the store).
    ///
    /// - Throws: `EncodingError.oddLength`, `.invalidCharacter` or `.invalidLength`.
    public init(hexUTF8 text: UnsafeRawBufferPointer) throws(EncodingError) {
        try self.init(hash: [UInt8](hexUTF8: text, reversed: true))
    }

    /// Decoded hash bytes, checked to be 32.
    private init(hash bytes: [UInt8]) throws(EncodingError) {
        guard bytes.count == 32 else { throw .invalidLength(expected: "32 bytes", actual: bytes.count) }
        self.init(unchecked: bytes)
    }

    /// The displayed hex form: the bytes reversed.
    public var hexString: String { Hex.encodeReversed(bytes) }
    /// The displayed hex form.
    public var description: String { hexString }
}

extension Txid: BitcoinCodable {
    public init(from reader: inout ByteReader) throws(EncodingError) {
        self.init(unchecked: try reader.read(count: 32))
    }

    public func encode(to writer: inout ByteWriter) { writer.write(bytes) }
}

/// A witness transaction id: SHA-256d of the full serialization including witness data (BIP141).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0141.mediawiki#transaction-id
public struct Wtxid: Hashable, Sendable, CustomStringConvertible {
    /// The 32 hash bytes in internal order.
    public let bytes: [UInt8]

    package init(unchecked bytes: [UInt8]) { self.bytes = bytes }

    /// The displayed hex form: the bytes reversed.
    public var hexString: String { Hex.encodeReversed(bytes) }
    /// The displayed hex form.
    public var description: String { hexString }
}
