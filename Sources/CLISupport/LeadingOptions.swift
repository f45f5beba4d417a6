/// Lets options that every subcommand take also stand before the subcommand, as users write them.
///
/// `airlock-watcher --wallet savings balance` means `airlock-watcher balance --wallet savings`.
///
/// ArgumentParser parses a subcommand's options only after its name, so the executable's `main` moves the leading
/// ones behind the subcommand path before parsing. Only the names listed move; anything else stays where it is and is
/// reported by the parser as usual.
public struct LeadingOptions: Sendable {
    /// Long option names (without `--`) that take a value.
    public var valued: Set<String>
    /// Long flag names (without `--`).
    public var flags: Set<String>

    public init(valued: Set<String>, flags: Set<String>) {
        self.valued = valued
        self.flags = flags
    }

    /// `arguments` (without the program name) with the leading shared options moved to the end of the command line
    /// (before a `--` terminator, if any).
    ///
    /// Unchanged when nothing leads, when no subcommand follows, or when a
    /// valued option has no value.
    public func reordered(_ arguments: [String]) -> [String] {
        var moved: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex, arguments[index].hasPrefix("--"), arguments[index] != "--" {
            let argument = arguments[index]
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            if flags.contains(name), !argument.contains("=") {
                moved.append(argument)
                index += 1
            } else if valued.contains(name) {
                if argument.contains("=") {
                    moved.append(argument)
                    index += 1
                } else {
                    guard index + 1 < arguments.endIndex else { return arguments }
                    moved += [argument, arguments[index + 1]]
                    index += 2
                }
            } else {
                break
            }
        }
        let rest = Array(arguments[index...])
        guard !moved.isEmpty, let first = rest.first, !first.hasPrefix("-") else { return arguments }
        if let terminator = rest.firstIndex(of: "--") {
            return Array(rest[..<terminator]) + moved + Array(rest[terminator...])
        }
        return rest + moved
    }
}
