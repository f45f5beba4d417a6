/// The components of a UR string: type, optional `seqNum-seqLen`, and bytewords body.
package struct URString: Sendable {
    package let type: String
    package let sequence: (seqNum: UInt32, seqLen: Int, text: String)?
    package let body: String

    /// Splits `text` (case-insensitive) into its components.
    ///
    /// - Throws: `URError.notUR`, `.invalidType`, `.invalidPath` or `.invalidSequence`.
    package init(_ text: String) throws(URError) {
        // Work on ASCII-lower-cased UTF-8 bytes: UR strings are ASCII, anything else fails validation below.
        let bytes = text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        guard bytes.count >= 3, bytes[0] == UInt8(ascii: "u"), bytes[1] == UInt8(ascii: "r"),
            bytes[2] == UInt8(ascii: ":")
        else { throw .notUR }
        let components = bytes[3...].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let type = String(decoding: components[0], as: UTF8.self)
        guard UR.isValidType(type) else { throw .invalidType(String(type.prefix(40))) }
        switch components.count {
        case 2:
            sequence = nil
        case 3:
            let seq = String(decoding: components[1], as: UTF8.self)
            let numbers = components[1].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            guard numbers.count == 2,
                numbers.allSatisfy({ (1...10).contains($0.count) && $0.allSatisfy { (0x30...0x39).contains($0) } }),
                let seqNum = UInt32(String(decoding: numbers[0], as: UTF8.self)),
                let seqLen = Int(String(decoding: numbers[1], as: UTF8.self)), seqNum >= 1, seqLen >= 1
            else { throw .invalidSequence(String(seq.prefix(40))) }
            sequence = (seqNum, seqLen, seq)
        default:
            throw .invalidPath(String(text.prefix(40)))
        }
        guard let last = components.last, !last.isEmpty else { throw .invalidPath(String(text.prefix(40))) }
        self.type = type
        body = String(decoding: last, as: UTF8.self)
    }
}
