import Codecs

/// Hexadecimal text for byte arrays: `[UInt8](hex:)` and `.hexString` (docs/architecture.md rule R5), on Codecs' one
/// hex implementation.
extension Array where Element == UInt8 {
    /// Decodes hex text (upper or lower case, no prefix or spaces), in order or `reversed` (a txid's displayed form).
    ///
    /// - Throws: `EncodingError.oddLength` or `.invalidCharacter` naming the offending position.
    public init(hex: String, reversed: Bool = false) throws(EncodingError) {
        do { self = try Hex.decode(hex, reversed: reversed) } catch { throw EncodingError(error) }
    }

    /// Decodes hex text given as its UTF-8 bytes (a text column read in place by the store); see `init(hex:reversed:)`.
    ///
    /// - Throws: `EncodingError.oddLength` or `.invalidCharacter`.
    public init(hexUTF8 text: UnsafeRawBufferPointer, reversed: Bool = false) throws(EncodingError) {
        do { self = try Hex.decode(utf8: text, reversed: reversed).get() } catch { throw EncodingError(error) }
    }

    /// Lower-case hex text of the bytes.
    public var hexString: String { Hex.encode(self) }
}

extension ArraySlice where Element == UInt8 {
    /// Lower-case hex text of the bytes.
    public var hexString: String { Hex.encode(self) }
}

extension EncodingError {
    /// The hex decoder's refusal as an encoding error.
    init(_ error: HexError) {
        switch error {
        case .oddLength(let count): self = .oddLength(count)
        case .invalidCharacter(let byte, let position):
            self = .invalidCharacter(Character(UnicodeScalar(byte)), position: position)
        }
    }
}
