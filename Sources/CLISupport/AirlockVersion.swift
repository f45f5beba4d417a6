/// The version both executables report with `--version`: the release number and the commit the binary was built from.
///
/// The commit comes from `BuildCommit.hash`, which `scripts/package` (and so `scripts/reproduce`) writes into the clean
/// clone it builds from, taken from the commit itself and never from the clock, so two builds of one commit stay
/// identical (docs/reproducible.md). A `swift build` in a working tree leaves it empty: a development build.
public enum AirlockVersion {
    /// The semantic version of this build of Airlock.
    public static let number = "0.1.0"

    /// The full commit hash this binary was built from, or nil for a development build.
    public static var commit: String? { commit(from: BuildCommit.hash) }

    /// What `--version` prints: `0.1.0 (commit <40 hex digits>)` or `0.1.0 (development build, no commit recorded)`.
    public static let string = describe(number: number, commit: commit)

    /// The recorded commit when it is a commit hash (40 or 64 lower-case hex digits), else nil.
    static func commit(from recorded: String) -> String? {
        let hex = recorded.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        return hex && (recorded.utf8.count == 40 || recorded.utf8.count == 64) ? recorded : nil
    }

    /// The `--version` line of `number` built from `commit`.
    static func describe(number: String, commit: String?) -> String {
        guard let commit else { return "\(number) (development build, no commit recorded)" }
        return "\(number) (commit \(commit))"
    }
}
