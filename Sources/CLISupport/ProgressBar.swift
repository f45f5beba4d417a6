import Foundation

/// Progress on stderr: a redrawn bar on a terminal, plain lines (at most one per 10%) otherwise.
public final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let total: Int
    private let terminal: Bool
    private var lastDecile = -1
    private let lock = NSLock()

    /// A bar for `total` steps of `label`.
    public init(label: String, total: Int, terminal: Bool = Diagnostics.isTerminal) {
        self.label = label
        self.total = max(total, 1)
        self.terminal = terminal
    }

    /// Shows that `done` of the total steps are complete.
    public func update(_ done: Int) {
        lock.lock()
        defer { lock.unlock() }
        let clamped = min(max(done, 0), total)
        let percent = clamped * 100 / total
        if terminal {
            let width = 30
            let filled = clamped * width / total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            FileHandle.standardError.write(Data("\r\(label) \(bar) \(percent)% (\(clamped)/\(total))".utf8))
            if clamped == total { FileHandle.standardError.write(Data("\n".utf8)) }
        } else {
            let decile = percent / 10
            if decile != lastDecile {
                lastDecile = decile
                Diagnostics.print("\(label): \(percent)% (\(clamped)/\(total))")
            }
        }
    }
}
