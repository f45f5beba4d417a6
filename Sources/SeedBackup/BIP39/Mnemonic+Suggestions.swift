import Bitcoin

extension Mnemonic {
    /// The wordlist words nearest to a mistyped `word`, best first: those within edit distance 2 (a transposition
    /// counts as one edit), ranked by distance and then by the length of the common prefix; when none is that close,
    /// the words that share the longest prefix (at least one letter).
    ///
    /// At most `limit` words.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0039.mediawiki#wordlist
    public static func suggestions(for word: String, limit: Int = 4) -> [String] {
        let typed = Array(word.lowercased().utf8)
        var ranked: [(word: String, distance: Int, prefix: Int)] = []
        for candidate in englishWordlist {
            let letters = Array(candidate.utf8)
            let prefix = zip(typed, letters).prefix { $0 == $1 }.count
            let distance = editDistance(typed, letters)
            ranked.append((candidate, distance, prefix))
        }
        ranked.sort { ($0.distance, -$0.prefix, $0.word) < ($1.distance, -$1.prefix, $1.word) }
        let close = ranked.filter { $0.distance <= 2 }
        if !close.isEmpty { return close.prefix(limit).map(\.word) }
        let longest = ranked.map(\.prefix).max() ?? 0
        guard longest > 0 else { return [] }
        return ranked.filter { $0.prefix == longest }.prefix(limit).map(\.word)
    }

    /// Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent transpositions.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
