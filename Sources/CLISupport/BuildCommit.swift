// scripts/package replaces this file in the clean clone it builds from with the commit being built
// (docs/reproducible.md). Keep it to this one constant: the script writes the same shape.
enum BuildCommit {
    static let hash = ""
}
