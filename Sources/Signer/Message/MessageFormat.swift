/// The message signature formats the signer writes (docs/signer.md, "Message signing").
public enum MessageFormat: String, Sendable, CaseIterable {
    /// BIP322 simple (`smp…`): the witness stack; native segwit addresses (wpkh, tr).
    case bip322Simple = "bip322-simple"
    /// BIP322 full (`ful…`): the signed `to_sign` transaction; every address kind.
    case bip322Full = "bip322-full"
    /// The legacy `signmessage` format: Bitcoin Core's for pkh, BIP137 headers for sh-wpkh and wpkh; not taproot.
    case legacy

    /// The default for an address kind: simple where it can carry the signature, else full.
    public static func defaultFormat(for script: AccountScript) -> MessageFormat {
        script == .wpkh || script == .tr ? .bip322Simple : .bip322Full
    }
}
