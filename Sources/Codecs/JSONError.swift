/// Why JSON text was refused.
public enum JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not JSON: why, and the byte offset of the problem.
    case malformed(offset: Int, reason: String)
    /// An object names the member twice (the name, the byte offset of the second one).
    case duplicateMember(name: String, offset: Int)

    /// The byte offset of the problem.
    public var offset: Int {
        switch self {
        case .malformed(let offset, _), .duplicateMember(_, let offset): offset
        }
    }

    public var description: String {
        switch self {
        case .malformed(let offset, _): "not valid JSON (at byte \(offset))"
        case .duplicateMember(let name, let offset):
            "the JSON names the member \"\(Self.quotedName(name))\" twice in one object (at byte \(offset)): "
                + "readers disagree on which one counts, so it is refused"
        }
    }

    /// `name` with anything outside printable ASCII escaped, at most 40 characters: the name came from outside.
    public static func quotedName(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars.prefix(40) {
            if (0x20..<0x7F).contains(scalar.value), scalar != "\"", scalar != "\\" {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(scalar.value, radix: 16)
                let padded = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                out += scalar.value > 0xFFFF ? "\\u{\(hex)}" : "\\u" + padded
            }
        }
        return name.unicodeScalars.count > 40 ? out + "..." : out
    }
}
