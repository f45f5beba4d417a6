import ArgumentParser

/// Advice for a command line the parser refused: a mistyped subcommand (`airlock-signer sing` → "did you mean
/// 'sign'?") or an unknown option (`send --amout 0.1btc` → "did you mean --amount?"), reported before any other
/// complaint about the same line (a count check on the options that were understood, for one).
public enum CommandAdvice {
    /// What is wrong with a command line, and the nearest name when there is one.
    public struct Advice: Sendable, Equatable {
        /// The sentence for the user.
        public let message: String
        /// The word or option that names nothing.
        public let subject: String
        /// The name it was probably meant to be.
        public let suggestion: String?
    }

    /// The advice for `arguments` (without the program name) under `root`, or nil when the line has neither a
    /// mistyped subcommand nor an unknown option.
    public static func advice(for root: any ParsableCommand.Type, arguments: [String]) -> Advice? {
        var command = root
        var path = [name(of: root)]
        var index = 0
        // Follow subcommand names; the first word that names none, where one is expected, is the typo.
        while index < arguments.count {
            let word = arguments[index]
            if word == "--" { break }
            if word.hasPrefix("-") {
                index += 1
                continue
            }
            let children = command.configuration.subcommands
            guard !children.isEmpty else { break }
            if let child = children.first(where: { names(of: $0).contains(word) }) {
                command = child
                path.append(name(of: child))
                index += 1
                continue
            }
            // A word that names a subcommand of the default subcommand goes there, as the parser takes it.
            if let fallback = command.configuration.defaultSubcommand,
                fallback.configuration.subcommands.contains(where: { names(of: $0).contains(word) })
            {
                command = fallback
                path.append(name(of: fallback))
                continue
            }
            if word == "help" { return nil }
            let all = children.flatMap { names(of: $0) }
            let near = closest(to: word, among: all)
            // A word after an option may be its value, not a command: say something only when it looks like a typo.
            if near == nil, index > 0, arguments[index - 1].hasPrefix("-") { break }
            let list = children.map { name(of: $0) }.joined(separator: ", ")
            return Advice(
                message: "unknown command '\(word)' for '\(path.joined(separator: " "))'"
                    + (near.map { "; did you mean '\($0)'?" } ?? "; the commands are: \(list)"),
                subject: word, suggestion: near)
        }
        // Options the chosen command does not know (its help text names every option it takes).
        let help = root.helpMessage(for: command, includeHidden: true, columns: 10_000)
        let known = Set(
            optionNames(in: help) + [
                "--help", "-h", "--version", "--experimental-dump-help", "--generate-completion-script",
            ])
        for argument in arguments.prefix(while: { $0 != "--" }) where argument.hasPrefix("--") {
            let option = String(argument.prefix { $0 != "=" })
            guard option.count > 2, !known.contains(option) else { continue }
            let near = closest(to: option, among: Array(known))
            return Advice(
                message: "unknown option \(option) for '\(path.joined(separator: " "))'"
                    + (near.map { "; did you mean \($0)?" } ?? "; see --help"),
                subject: option, suggestion: near)
        }
        return nil
    }

    /// The name a command is called by.
    static func name(of command: any ParsableCommand.Type) -> String {
        command.configuration.commandName ?? command._commandName
    }

    /// The name and aliases of a command.
    static func names(of command: any ParsableCommand.Type) -> [String] {
        [name(of: command)] + command.configuration.aliases
    }

    /// The long options (`--name`) a help text names.
    static func optionNames(in help: String) -> [String] {
        help.matches(of: /--[a-z0-9][a-z0-9-]*/).map { String($0.output) }
    }

    /// The candidate nearest to `word` by edit distance, when it is near enough to be a typo of it (at most a third
    /// of the word's letters, and at least one, differ) or `word` starts it.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let limit = max(1, word.count / 3)
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { $0.1 <= limit }
        if let best = scored.min(by: { $0.1 < $1.1 }) { return best.0 }
        let prefixed = candidates.filter { $0.hasPrefix(word) && word.count >= 2 }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// The Damerau–Levenshtein distance (adjacent swaps count one) between `a` and `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
