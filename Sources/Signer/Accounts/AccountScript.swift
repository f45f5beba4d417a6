import Bitcoin

/// The single-key account kinds the signer exports, with their BIP purpose, and the BIP48 multisig cosigner key.
public enum AccountScript: String, Sendable, CaseIterable {
    /// Native segwit P2WPKH, BIP84 (`m/84h/COINh/ACCOUNTh`).
    case wpkh
    /// P2WPKH nested in P2SH, BIP49 (`m/49h/…`).
    case shWpkh = "sh-wpkh"
    /// Legacy P2PKH, BIP44 (`m/44h/…`).
    case pkh
    /// Taproot key path, BIP86 (`m/86h/…`).
    case tr
    /// A cosigner key for P2WSH multisig, BIP48 script type 2 (`m/48h/COINh/ACCOUNTh/2h`); no single-key script.
    case wshMulti = "wsh-multi"

    /// The BIP43 purpose.
    public var purpose: UInt32 {
        switch self {
        case .wpkh: 84
        case .shWpkh: 49
        case .pkh: 44
        case .tr: 86
        case .wshMulti: 48
        }
    }

    /// The account path `m/PURPOSEh/COINh/ACCOUNTh` (and `/2h` for BIP48 P2WSH).
    ///
    /// - Throws: `BIP32Error` for an account ≥ 2^31.
    public func path(network: Network, account: UInt32) throws(BIP32Error) -> DerivationPath {
        var components = [
            try ChildNumber.hardened(purpose), try ChildNumber.hardened(network.coinType),
            try ChildNumber.hardened(account),
        ]
        if self == .wshMulti { components.append(try .hardened(2)) }
        return try DerivationPath(components)
    }

    /// The descriptor around a key expression, or nil for the multisig cosigner key.
    func descriptorText(key: String) -> String? {
        switch self {
        case .wpkh: "wpkh(\(key))"
        case .shWpkh: "sh(wpkh(\(key)))"
        case .pkh: "pkh(\(key))"
        case .tr: "tr(\(key))"
        case .wshMulti: nil
        }
    }

    /// The SLIP-132 script hint of the account xpub (zpub/vpub for BIP84 and so on).
    var slip132Hint: ExtendedKeyVersion.ScriptHint {
        switch self {
        case .wpkh: .p2wpkh
        case .shWpkh: .p2shP2wpkh
        case .pkh, .tr: .standard
        case .wshMulti: .p2wsh
        }
    }
}
