/// Errors from reading, checking or appending to the signing journal.
public enum AuditError: Error, Equatable, Sendable {
    /// A line is not a journal entry: its number (1-based) and what is wrong.
    case malformedLine(line: Int, reason: String)
    /// The hash chain breaks at this line: an entry was edited, removed, inserted or reordered.
    case brokenChain(line: Int, reason: String)
    /// The vault records more entries than the journal holds: its tail was cut.
    case truncated(expected: Int, found: Int)
    /// A file operation failed.
    case io(operation: String, path: String, reason: String)
}

extension AuditError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .malformedLine(let line, let reason): "audit log line \(line) is not a valid entry: \(reason)"
        case .brokenChain(let line, let reason): "audit log chain broken at line \(line): \(reason)"
        case .truncated(let expected, let found):
            "audit log truncated: the vault records \(expected) entr\(expected == 1 ? "y" : "ies"), the log holds \(found)"
        case .io(let operation, let path, let reason): "cannot \(operation) \(path): \(reason)"
        }
    }
}
