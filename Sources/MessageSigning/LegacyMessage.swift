import Bitcoin
import BitcoinCrypto

/// The legacy `signmessage` format of Bitcoin Core (P2PKH), with the BIP137 header bytes Electrum, Trezor and
/// Coldcard use for segwit addresses: a 65-byte recoverable ECDSA signature over
/// `SHA256d(varstr("Bitcoin Signed Message:\n") ‖ varstr(message))`, base64-encoded.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0137.mediawiki
public enum LegacyMessage {
    /// The kind of address a header byte names.
    public enum Kind: Sendable, Equatable {
        /// P2PKH of the uncompressed key (headers 27–30).
        case p2pkhUncompressed
        /// P2PKH of the compressed key (31–34). Bitcoin Core refuses these for segwit addresses, and so do we
        /// (Electrum accepts them); segwit addresses take the BIP137 headers.
        case p2pkh
        /// P2SH-P2WPKH (35–38, BIP137).
        case p2shP2wpkh
        /// P2WPKH (39–42, BIP137).
        case p2wpkh

        var headerBase: UInt8 {
            switch self {
            case .p2pkhUncompressed: 27
            case .p2pkh: 31
            case .p2shP2wpkh: 35
            case .p2wpkh: 39
            }
        }
    }

    /// The digest that is signed.
    public static func digest(_ message: some Collection<UInt8>) -> [UInt8] {
        var writer = ByteWriter(capacity: 26 + message.count + 9)
        writer.writeVarBytes(Array("Bitcoin Signed Message:\n".utf8))
        writer.writeVarBytes(Array(message))
        return SHA256.doubleHash(writer.bytes)
    }

    /// The 65-byte signature (header, r, s) of `message` by `key` for an address of `kind` (compressed kinds only).
    public static func sign(_ message: some Collection<UInt8>, key: PrivateKey, kind: Kind) throws(KeyError) -> [UInt8]
    {
        let signature = try key.signRecoverable(digest: digest(message))
        return [kind.headerBase + signature.recoveryID] + signature.compact
    }

    /// Checks a 65-byte signature against `address`, returning nil when valid, else the reason.
    ///
    /// It recovers the key and compares the address(es) its header allows.
    public static func check(_ signature: [UInt8], message: some Collection<UInt8>, address: Address) -> String? {
        guard signature.count == 65 else { return "a legacy signature is 65 bytes, not \(signature.count)" }
        let header = signature[0]
        guard (27...42).contains(header) else { return "the header byte \(header) is not 27…42" }
        let kind: Kind =
            switch header {
            case 27...30: .p2pkhUncompressed
            case 31...34: .p2pkh
            case 35...38: .p2shP2wpkh
            default: .p2wpkh
            }
        let recoverable: RecoverableSignature
        let key: PublicKey
        do {
            recoverable = try RecoverableSignature(
                compact: signature[1...], recoveryID: header - kind.headerBase)
            key = try recoverable.recoverPublicKey(digest: digest(message))
        } catch { return "invalid signature: no key recovers from it" }
        let candidates: [Script]
        switch kind {
        case .p2pkhUncompressed: candidates = [.p2pkh(PubkeyHash(unchecked: Hash160.hash(key.uncompressed)))]
        case .p2pkh:
            candidates = [.p2pkh(PubkeyHash(key))]
        case .p2shP2wpkh: candidates = [Script.p2wpkh(PubkeyHash(key)).p2shWrapped]
        case .p2wpkh: candidates = [.p2wpkh(PubkeyHash(key))]
        }
        return candidates.contains(address.scriptPubKey)
            ? nil : "invalid signature: the key it was made with is not this address's"
    }
}
