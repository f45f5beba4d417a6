import Bitcoin

/// Errors from reading or making a BIP39 mnemonic.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0039.mediawiki
public enum MnemonicError: Error, Equatable, Sendable {
    /// A word count other than 12, 15, 18, 21 or 24.
    case invalidWordCount(Int)
    /// Entropy other than 16, 20, 24, 28 or 32 bytes.
    case invalidEntropyLength(Int)
    /// A word that is not in the wordlist: its number (1-based) and the nearest valid words, best first, as a typo
    /// hint. The word itself is left out, since it is part of a secret.
    case unknownWord(number: Int, suggestions: [String])
    /// Every word is valid but the checksum bits do not match the entropy.
    case invalidChecksum
}
