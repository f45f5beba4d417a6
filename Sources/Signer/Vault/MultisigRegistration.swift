public import Bitcoin
public import BitcoinCrypto
public import Descriptors

/// `multisig register` (docs/signer.md): the wallet text read (a BIP129 BSMS record, encrypted or not, a Coldcard
/// wallet file, or a descriptor), the policy reviewed against this vault's keys, the own-keys rule decided.
public struct MultisigRegistration: Sendable {
    /// The wallet to register.
    public let wallet: MultisigWallet
    /// The BSMS record it came in, if any.
    public let bsms: BSMSDescriptorRecord?

    /// Reads the wallet `text`.
    ///
    /// Hex with a `token` is an encrypted BSMS record; `BSMS 1.0` a plain one; text holding
    /// `Policy:` a Coldcard wallet file; else the first line is a descriptor. `name` names it (default: the file's
    /// Name: line, `bsms` or `multisig`).
    ///
    /// - Throws: `BSMSError`, `MultisigError`, `DescriptorError` for what does not parse.
    public init(text: String, token: String?, name: String?) throws {
        var bsms: BSMSDescriptorRecord?
        if let token, text.trimmingCharacters(in: .whitespacesAndNewlines).allSatisfy(\.isHexDigit) {
            let plaintext = try BSMSToken(hex: token).decrypt(text)
            bsms = try BSMSDescriptorRecord(text: String(decoding: plaintext, as: UTF8.self))
        } else if text.hasPrefix("BSMS 1.0") {
            bsms = try BSMSDescriptorRecord(text: text)
        }
        if let bsms {
            wallet = try MultisigWallet(name: name ?? "bsms", descriptor: try bsms.descriptor().description)
        } else if text.lowercased().contains("policy:") {
            wallet = try MultisigWallet(coldcardText: text, name: name)
        } else {
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? text
            wallet = try MultisigWallet(name: name ?? "multisig", descriptor: line)
        }
        self.bsms = bsms
    }

    /// A registration of `wallet` as given (cosigner names added).
    public init(wallet: MultisigWallet, bsms: BSMSDescriptorRecord?) {
        self.wallet = wallet
        self.bsms = bsms
    }

    /// What the user reads before registering, and why it is refused.
    public struct Review: Sendable {
        /// The policy as reviewed against this vault.
        public let policy: MultisigPolicy
        /// The text shown.
        public let text: String
        /// Why it is not registered (empty: it may be).
        public let refusals: [String]
    }

    /// Reviews the wallet with this vault's `master`: the policy, a BSMS record's first address (checked against
    /// the descriptor), and the own-keys rule (two or more of this vault's keys: refused unless `allowOwnKeys`).
    ///
    /// - Throws: `MultisigError` (this vault is not a cosigner, a key does not match), `BSMSError` (the record's
    ///   first address is not the descriptor's).
    public func review(master: ExtendedPrivateKey, network: Network, allowOwnKeys: Bool) throws -> Review {
        let policy = try MultisigPolicy(wallet, master: master, network: network, registration: true)
        var text = policy.text
        if let bsms {
            // BIP129 round 2: the record's first address must be the descriptor's, and is shown to compare.
            let first = try bsms.checkedFirstAddress(network: network)
            let restrictions = bsms.restrictions.isEmpty ? "none" : bsms.restrictions.joined(separator: ",")
            text += "\n  BSMS 1.0 record, path restrictions \(restrictions)"
            text += "\n  first address: \(first)  (checked: the descriptor gives the same)"
        }
        var refusals: [String] = []
        if let ownKeys = policy.ownKeysRefusal {
            if allowOwnKeys {
                text += "\n  ! registered anyway (--allow-own-keys): ONE SIGNER COMPLETES THE SPEND"
            } else {
                refusals.append(
                    "not registered: \(ownKeys); pass --allow-own-keys to register it anyway; nothing stored")
            }
        }
        return Review(policy: policy, text: text, refusals: refusals)
    }
}
