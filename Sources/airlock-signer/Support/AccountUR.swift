import AirgapTransport
import Bitcoin
import Signer

/// The `crypto-account` UR of a seed's accounts (BCR-2020-015): the master fingerprint and one output descriptor
/// per account, each with its key as a `crypto-hdkey` carrying origin and parent fingerprint.
enum AccountUR {
    static func account(master: ExtendedPrivateKey, accounts: [AccountKey]) -> URCryptoAccount {
        let outputs = accounts.map { account -> URCryptoOutput in
            let key = URKey.hd(hdKey(account, master: master))
            switch account.script {
            case .pkh: return .pkh(key)
            case .shWpkh: return .sh(.wpkh(key))
            case .wpkh: return .wpkh(key)
            case .tr: return .tr(key)
            case .wshMulti: return .wsh(.cosigner(key))
            }
        }
        return URCryptoAccount(masterFingerprint: KeyFingerprint(rawValue: master.fingerprint.value), outputs: outputs)
    }

    static func hdKey(_ account: AccountKey, master: ExtendedPrivateKey) -> URHDKey {
        let components = account.origin.path.components.map {
            URKeypath.Component.index($0.index, hardened: $0.isHardened)
        }
        return URHDKey(
            keyData: account.xpub.publicKey.compressed, chainCode: account.xpub.chainCode,
            network: account.network == .main ? .mainnet : .testnet,
            origin: URKeypath(
                components: components, sourceFingerprint: KeyFingerprint(rawValue: master.fingerprint.value),
                depth: UInt8(components.count)),
            parentFingerprint: KeyFingerprint(rawValue: account.xpub.parentFingerprint.value))
    }
}
