/// Text from outside (PSBT fields, wallet and cosigner names, descriptors, BIP329 labels, messages, EIP-712 names and
/// values, request origins) made safe for a terminal: the one display routine of both chains (docs/threat-model.md,
/// "Untrusted text").
///
/// Whatever a coordinator, a dApp, a server or an imported file wrote is passed through here before it reaches a
/// terminal, so an escape sequence cannot redraw the screen or hide what is shown, and a bidirectional override cannot
/// make `moc.elgoog` read as `google.com`. Each hidden character is shown escaped as `\uXXXX` (`\u{XXXXX}` above
/// U+FFFF), and `Shown.hadHiddenCharacters` tells the review to say so; the data itself (in `--json`) is unchanged.
public enum DisplayText {
    /// Text ready to show, and whether anything in it had to be escaped.
    public struct Shown: Sendable, Equatable {
        /// The text with every hidden character escaped.
        public let text: String
        /// Whether the original held a hidden character (a control, format or separator character, a tag or a
        /// variation selector).
        public let hadHiddenCharacters: Bool
    }

    /// The note a review adds when a field it shows held hidden characters.
    public static let hiddenCharactersWarning =
        "some text held hidden characters (terminal controls or direction overrides): they are shown as \\u escapes"

    /// `text` with every hidden character escaped; `multiline` keeps line feeds (a message of several lines) and
    /// escapes every other hidden character.
    public static func show(_ text: String, multiline: Bool = false) -> Shown {
        guard text.unicodeScalars.contains(where: { isHidden($0, multiline: multiline) }) else {
            return Shown(text: text, hadHiddenCharacters: false)
        }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if isHidden(scalar, multiline: multiline) {
                result += escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return Shown(text: result, hadHiddenCharacters: true)
    }

    /// `text` with every hidden character escaped (`show(text).text`).
    public static func clean(_ text: String) -> String { show(text).text }

    /// Whether `text` holds a character `show` escapes.
    public static func hasHiddenCharacters(_ text: String, multiline: Bool = false) -> Bool {
        text.unicodeScalars.contains { isHidden($0, multiline: multiline) }
    }

    /// `\u202e` for U+202E, `\u{e0041}` above U+FFFF.
    static func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return scalar.value > 0xFFFF ? "\\u{\(hex)}" : "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// C0 and C1 controls and DEL (Cc), format characters (Cf: bidirectional controls, zero-width characters, the
    /// tag characters U+E0000–E007F), line and paragraph separators (Zl, Zp), and the variation selectors
    /// (U+FE00–FE0F, U+E0100–E01EF), which change how the character before them looks.
    static func isHidden(_ scalar: Unicode.Scalar, multiline: Bool) -> Bool {
        if multiline && scalar == "\n" { return false }
        switch scalar.value {
        case 0xFE00...0xFE0F, 0xE0000...0xE007F, 0xE0100...0xE01EF: return true
        default: break
        }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
