/// Syntactic address check used until the `Bitcoin` module can validate addresses.
///
/// TEMPORARY: `isPlausibleAddress` only looks at the character set, length, prefix and human-readable part; it does
/// not verify checksums. The lead replaces its body with real validation (`Bitcoin.Address(string:)`) later.
public enum AddressCandidate {
    private static let bech32Charset = Set("qpzry9x8gf2tvdw0s3jn54khce6mua7l")
    private static let base58Charset = Set("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")
    private static let knownHRPs: Set<String> = ["bc", "tb", "bcrt"]

    /// Returns whether `text` looks like a Bitcoin address: bech32(m) with a known HRP (`bc`, `tb`, `bcrt`) in one
    /// case, or base58 of 26-35 characters starting with `1`, `3` (mainnet), `m`, `n` or `2` (test networks).
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0173.mediawiki
    public static func isPlausibleAddress(_ text: String) -> Bool {
        let lower = text.lowercased()
        if let separator = lower.lastIndex(of: "1") {
            if text == lower || text == text.uppercased(), knownHRPs.contains(String(lower[..<separator])) {
                let data = lower[lower.index(after: separator)...]
                return (14...90).contains(text.count) && data.count >= 8 && data.allSatisfy(bech32Charset.contains)
            }
        }
        guard let first = text.first, "13mn2".contains(first) else { return false }
        return (26...35).contains(text.count) && text.allSatisfy(base58Charset.contains)
    }
}
