/// Bytewords: each byte as one of 256 four-letter words, with a CRC-32 checksum (standard, URI and minimal styles).
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-012-bytewords.md
package enum Bytewords {
    /// How the words are written.
    package enum Style: Sendable {
        /// Whole words separated by spaces.
        case standard
        /// Whole words separated by hyphens.
        case uri
        /// The first and last letter of each word, run together (what UR strings use).
        case minimal
    }

    /// The 256 words, indexed by byte value (BCR-2020-012).
    package static let words: [String] = [
        "able", "acid", "also", "apex", "aqua", "arch", "atom", "aunt", "away", "axis", "back", "bald",
        "barn", "belt", "beta", "bias", "blue", "body", "brag", "brew", "bulb", "buzz", "calm", "cash",
        "cats", "chef", "city", "claw", "code", "cola", "cook", "cost", "crux", "curl", "cusp", "cyan",
        "dark", "data", "days", "deli", "dice", "diet", "door", "down", "draw", "drop", "drum", "dull",
        "duty", "each", "easy", "echo", "edge", "epic", "even", "exam", "exit", "eyes", "fact", "fair",
        "fern", "figs", "film", "fish", "fizz", "flap", "flew", "flux", "foxy", "free", "frog", "fuel",
        "fund", "gala", "game", "gear", "gems", "gift", "girl", "glow", "good", "gray", "grim", "guru",
        "gush", "gyro", "half", "hang", "hard", "hawk", "heat", "help", "high", "hill", "holy", "hope",
        "horn", "huts", "iced", "idea", "idle", "inch", "inky", "into", "iris", "iron", "item", "jade",
        "jazz", "join", "jolt", "jowl", "judo", "jugs", "jump", "junk", "jury", "keep", "keno", "kept",
        "keys", "kick", "kiln", "king", "kite", "kiwi", "knob", "lamb", "lava", "lazy", "leaf", "legs",
        "liar", "limp", "lion", "list", "logo", "loud", "love", "luau", "luck", "lung", "main", "many",
        "math", "maze", "memo", "menu", "meow", "mild", "mint", "miss", "monk", "nail", "navy", "need",
        "news", "next", "noon", "note", "numb", "obey", "oboe", "omit", "onyx", "open", "oval", "owls",
        "paid", "part", "peck", "play", "plus", "poem", "pool", "pose", "puff", "puma", "purr", "quad",
        "quiz", "race", "ramp", "real", "redo", "rich", "road", "rock", "roof", "ruby", "ruin", "runs",
        "rust", "safe", "saga", "scar", "sets", "silk", "skew", "slot", "soap", "solo", "song", "stub",
        "surf", "swan", "taco", "task", "taxi", "tent", "tied", "time", "tiny", "toil", "tomb", "toys",
        "trip", "tuna", "twin", "ugly", "undo", "unit", "urge", "user", "vast", "very", "veto", "vial",
        "vibe", "view", "visa", "void", "vows", "wall", "wand", "warm", "wasp", "wave", "waxy", "webs",
        "what", "when", "whiz", "wolf", "work", "yank", "yawn", "yell", "yoga", "yurt", "zaps", "zero",
        "zest", "zinc", "zone", "zoom",
    ]

    private static let wordBytes: [[UInt8]] = words.map { Array($0.utf8) }
    private static let minimalBytes: [[UInt8]] = wordBytes.map { [$0[0], $0[3]] }

    /// Maps a four-letter word (lower case) to its byte value.
    private static let wordIndex: [UInt32: UInt8] = {
        var map: [UInt32: UInt8] = [:]
        for (i, w) in wordBytes.enumerated() { map[pack(w[0], w[1], w[2], w[3])] = UInt8(i) }
        return map
    }()

    /// Maps the first and last letter of a word to its byte value; the pairs are unique by design.
    private static let minimalIndex: [UInt16: UInt8] = {
        var map: [UInt16: UInt8] = [:]
        for (i, w) in minimalBytes.enumerated() { map[UInt16(w[0]) << 8 | UInt16(w[1])] = UInt8(i) }
        return map
    }()

    private static func pack(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> UInt32 {
        UInt32(a) << 24 | UInt32(b) << 16 | UInt32(c) << 8 | UInt32(d)
    }

    /// Encodes `bytes` followed by their big-endian CRC-32 in `style`.
    package static func encode(_ bytes: [UInt8], style: Style) -> String {
        let all = bytes + CRC32.bigEndianBytes(bytes)
        switch style {
        case .standard: return all.map { words[Int($0)] }.joined(separator: " ")
        case .uri: return all.map { words[Int($0)] }.joined(separator: "-")
        case .minimal: return String(decoding: all.flatMap { minimalBytes[Int($0)] }, as: UTF8.self)
        }
    }

    /// Decodes bytewords text in `style` (case-insensitive) and checks and strips its CRC-32.
    ///
    /// - Throws: `BytewordsError` on an unknown word, a bad length, fewer than 5 bytes or a checksum mismatch.
    package static func decode(_ text: String, style: Style) throws(BytewordsError) -> [UInt8] {
        let chars = text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        var bytes: [UInt8] = []
        switch style {
        case .minimal:
            guard chars.count % 2 == 0 else { throw .invalidLength(chars.count) }
            bytes.reserveCapacity(chars.count / 2)
            var i = 0
            while i < chars.count {
                guard let b = minimalIndex[UInt16(chars[i]) << 8 | UInt16(chars[i + 1])] else {
                    throw .invalidWord(String(decoding: chars[i..<i + 2], as: UTF8.self))
                }
                bytes.append(b)
                i += 2
            }
        case .standard, .uri:
            let separator = style == .standard ? UInt8(ascii: " ") : UInt8(ascii: "-")
            if chars.isEmpty { throw .tooShort(byteCount: 0) }
            for word in chars.split(separator: separator, omittingEmptySubsequences: false) {
                let w = Array(word)
                guard w.count == 4, let b = wordIndex[pack(w[0], w[1], w[2], w[3])] else {
                    throw .invalidWord(String(decoding: w, as: UTF8.self))
                }
                bytes.append(b)
            }
        }
        guard bytes.count > 4 else { throw .tooShort(byteCount: bytes.count) }
        let body = Array(bytes.dropLast(4))
        guard CRC32.bigEndianBytes(body) == Array(bytes.suffix(4)) else { throw .checksumMismatch }
        return body
    }
}
