extension String {
    /// The string without leading and trailing spaces, tabs, CR and LF (QR decoders sometimes add a newline).
    func trimmingWhitespace() -> String {
        let bytes = utf8
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        if first == bytes.startIndex, bytes.index(after: last) == bytes.endIndex { return self }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
