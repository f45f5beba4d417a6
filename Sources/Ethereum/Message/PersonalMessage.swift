/// An EIP-191 version 0x45 ("personal_sign") message.
///
/// - SeeAlso: https://eips.ethereum.org/EIPS/eip-191
public struct PersonalMessage: Sendable, Equatable {
    /// The message bytes as given.
    public let bytes: [UInt8]

    /// A message of `bytes`.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// Keccak-256 of `"\x19Ethereum Signed Message:\n" ‖ len(message) ‖ message`.
    public var signingHash: [UInt8] {
        Keccak256.hash(Array("\u{19}Ethereum Signed Message:\n\(bytes.count)".utf8) + bytes)
    }

    /// The message as text when it is valid UTF-8 without control characters other than newline and tab.
    public var printableText: String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let printable = text.unicodeScalars.allSatisfy { s in
            s == "\n" || s == "\t" || (s.value >= 0x20 && s.value != 0x7F && !(0x80...0x9F).contains(s.value))
        }
        return printable ? text : nil
    }

    /// The message as text when it is valid UTF-8 without terminal controls other than line feed, carriage return
    /// and tab.
    ///
    /// The review shows carriage returns and tabs escaped. Format characters such as direction overrides are text here: the
    /// review shows them escaped and warns.
    public var readableText: String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let readable = text.unicodeScalars.allSatisfy { s in
            s == "\n" || s == "\t" || s == "\r"
                || (s.value >= 0x20 && s.value != 0x7F && !(0x80...0x9F).contains(s.value))
        }
        return readable ? text : nil
    }
}
