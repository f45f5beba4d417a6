import Foundation

/// The last pass over every error message before a user reads it: no Swift type or case names, no module names, no
/// `errno`, no hex dump (docs/DESIGN section 2, issue 27).
///
/// Messages are meant to be written in plain words where they are made; this pass catches the ones that still
/// interpolate a library error (`invalidEncoding(Bitcoin.EncodingError.unexpectedEnd)` becomes "invalid encoding:
/// unexpected end") and long hex (a raw transaction in a node's answer) is cut to its start.
public enum PlainMessage {
    /// Module names that prefix a type in `String(describing:)` of an error.
    static let modules = [
        "Bitcoin", "BitcoinCrypto", "Ethereum", "AirgapTransport", "QRImage", "ChainCore", "ChainBackends", "Watcher",
        "Signer", "CLISupport", "NIOCore", "NIOPosix", "NIOSSL", "NIOHTTP1", "NIOSOCKS", "Swift", "Foundation",
    ]

    /// `message` with internals turned into words.
    public static func clean(_ message: String) -> String {
        var text = message
        // Module-qualified type names: "Bitcoin.EncodingError.unexpectedEnd" → "unexpectedEnd".
        let modulePattern = #"\b(?:"# + modules.joined(separator: "|") + #")\.(?:[A-Z][A-Za-z0-9_]*\.)*"#
        text = replacing(modulePattern, in: text) { _ in "" }
        // "errno: 111" → "connection refused".
        text = replacing(#"\(?errno:? ?([0-9]+)\)?"#, in: text) { groups in
            guard let code = Int32(groups[1]), let reason = strerror(code) else { return "" }
            return String(cString: reason).lowercased()
        }
        // A case name with its payload: "truncatedChunk(type: "IDAT", …)" → "truncated chunk (type: "IDAT", …)".
        text = replacing(#"\b([a-z]+(?:[A-Z][a-z]+)+)\("#, in: text) { groups in words(groups[1]) + " (" }
        // A bare case name as the whole message or after a colon: "invalidChecksum" → "invalid checksum".
        text = replacing(#"(^|: |\()([a-z]+(?:[A-Z][a-z]+)+)(?=$|[),;])"#, in: text) { groups in
            groups[1] + words(groups[2])
        }
        // A one-word case with labelled payload: "syntax(expected: …)" → "syntax (expected: …)".
        text = replacing(#"\b([a-z]+)\(([a-z][A-Za-z]*): "#, in: text) { groups in
            groups[1] + " (" + groups[2] + ": "
        }
        // Argument labels of a case's payload: "declaredLength: 9" → "declared length: 9".
        text = replacing(#"\b([a-z]+(?:[A-Z][a-z]+)+):"#, in: text) { groups in words(groups[1]) + ":" }
        // A type name followed by a parenthesis: "SingleConnectionFailure(" → "single connection failure (".
        text = replacing(#"\b([A-Z][a-z]+(?:[A-Z][a-z]+)+)\("#, in: text) { groups in words(groups[1]) + " (" }
        // Hex longer than 64 characters: its start, and how long it was.
        text = replacing(#"[0-9a-fA-F]{65,}"#, in: text) { groups in
            String(groups[0].prefix(16)) + "… (\(groups[0].count / 2) bytes)"
        }
        return text
    }

    /// "invalidChecksum" → "invalid checksum".
    static func words(_ identifier: String) -> String {
        var result = ""
        for character in identifier {
            if character.isUppercase, !result.isEmpty { result += " " }
            result += character.lowercased()
        }
        return result
    }

    /// `text` with every match of `pattern` replaced by `transform` of its groups (group 0 the whole match).
    static func replacing(_ pattern: String, in text: String, _ transform: ([String]) -> String) -> String {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return text }
        let source = text as NSString
        var result = ""
        var last = 0
        for match in regex.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            result += source.substring(with: NSRange(location: last, length: match.range.location - last))
            let groups = (0..<match.numberOfRanges).map { index -> String in
                let range = match.range(at: index)
                return range.location == NSNotFound ? "" : source.substring(with: range)
            }
            result += transform(groups)
            last = match.range.location + match.range.length
        }
        result += source.substring(from: last)
        return result
    }
}
