/// Text from outside (PSBT fields, wallet names, descriptors, BIP329 labels, messages) made safe for a terminal.
///
/// Shared by both executables: whatever a coordinator, a server or an imported file wrote is cleaned before it
/// reaches a terminal, so an escape sequence cannot redraw the screen or hide what is shown.
public enum DisplayText {
    /// `text` without terminal control characters: C0 and C1 controls (escape sequences start there), DEL, and the
    /// format characters that reorder or hide text (bidirectional overrides, zero-width characters); each becomes `?`.
    public static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { result.append(isUnsafe(scalar) ? "?" : scalar) }
        return String(result)
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}
