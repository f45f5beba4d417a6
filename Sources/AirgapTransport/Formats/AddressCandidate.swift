import Bitcoin

/// Whether a QR text is a Bitcoin address: decoded and checksum-verified by the `Bitcoin` module's address parser
/// (base58check P2PKH/P2SH, bech32/bech32m segwit of any network).
public enum AddressCandidate {
    /// Whether `text` is a valid address of some network.
    public static func isPlausibleAddress(_ text: String) -> Bool {
        (try? Address.decode(text)) != nil
    }
}
