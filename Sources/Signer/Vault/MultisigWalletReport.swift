import Bitcoin

/// One registered multisig wallet (`multisig list`, `multisig register`, `info`).
public struct MultisigWalletReport: Encodable, Sendable {
    let name: String
    let threshold: Int
    let keys: Int
    let script: String
    let descriptor: String
    /// A miniscript policy wallet's policy in words (absent for plain multisig; `threshold` is then 0).
    let policy: String?
    /// The cosigners' names given at registration (`--cosigner FP=NAME`); empty when none were given.
    let cosigners: [CosignerNameJSON]
    /// Whether the wallet's name held hidden characters (given as it is; escaped on the screen); absent when not.
    let hiddenCharacters: Bool?
    /// `multisig register`: what the review warned about (absent in lists).
    public var warnings: [String]?
    /// `multisig register`: every way the wallet can be spent without this vault, in words (absent in lists).
    public var pathsWithoutThisVault: [String]?

    /// A cosigner's name.
    public struct CosignerNameJSON: Encodable, Sendable {
        let fingerprint: String
        let name: String

        /// The name of the cosigner with `fingerprint`.
        public init(fingerprint: String, name: String) {
            self.fingerprint = fingerprint
            self.name = name
        }
    }

    /// The report of `wallet`.
    public init(_ wallet: MultisigWallet) {
        cosigners = wallet.cosignerNames.map { CosignerNameJSON(fingerprint: $0.fingerprint, name: $0.name) }
        name = wallet.name
        threshold = wallet.threshold
        keys = wallet.keyCount
        script = wallet.scriptType
        descriptor = wallet.descriptorText
        policy = wallet.miniscriptPolicy
        hiddenCharacters = DisplayText.hasHiddenCharacters(wallet.name) ? true : nil
    }
}
