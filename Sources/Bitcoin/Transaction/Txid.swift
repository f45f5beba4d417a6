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

    /// Hashes the first eight bytes, as one integer.
    ///
    /// An array hashes itself a byte at a time, and the sync's maps and sets of txids and outpoints spent a tenth of
    /// its CPU there (issue 33); all 32 bytes in one `combine(bytes:)` still cost four SipHash rounds where one will
    /// do: a txid is a SHA-256d output, so its first eight bytes are as evenly spread as the whole, and making many
    /// txids share them is a 2^64 search per txid (Bitcoin Core's `BlockHasher` reads a block hash's first eight
    /// bytes likewise); Swift's `Hasher` is still seeded per process. Equal txids still hash alike; `==` compares all
    /// the bytes.
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { raw in
            if raw.count >= 8 {
                hasher.combine(raw.loadUnaligned(as: UInt64.self))
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
