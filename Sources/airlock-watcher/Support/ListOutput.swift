import CLISupport
import WatcherFlows

extension ListReport {
    /// Prints the report: with `json`, its JSON array an entry at a time (`JSONOutput.printEach`: the bytes
    /// `JSONOutput.print(self)` writes, without every entry's value held at once); else `lines`, one each.
    func show(json: Bool, lines: @autoclosure () -> [String]) throws {
        if json { try JSONOutput.printEach(entries) } else { print(lines().joined(separator: "\n")) }
    }
}
