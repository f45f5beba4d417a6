import Bitcoin
import BitcoinCrypto

/// A seed's own silent-payment keys (BIP352 "Key Derivation"): the scan key at m/352'/coin'/account'/1'/0 and the
/// spend key at m/352'/coin'/account'/0'/0.
///
/// The signer uses them to recognize its own change (label 0) among a PSBT's silent-payment outputs; it never scans.
public struct SilentPaymentKeys: Sendable {
    /// The account (the third level of the path).
    public let account: UInt32
    /// b_scan (needed for the label tweak).
    public let scanKey: PrivateKey
    /// B_spend.
    public let spendKey: PublicKey

    /// BIP352's purpose, 352'.
    public static let purpose: UInt32 = 352

    /// The keys of `account` under `master` for `network` (coin type 0 on main, 1 elsewhere).
    ///
    /// - Throws: `BIP32Error` in the negligible case of a derivation outside the group.
    public init(master: ExtendedPrivateKey, network: Network, account: UInt32) throws {
        let base: [ChildNumber] = [
            try .hardened(Self.purpose), try .hardened(network.coinType), try .hardened(account),
        ]
        let scan = try master.derive(try DerivationPath(base + [try .hardened(1), try .normal(0)]))
        let spend = try master.derive(try DerivationPath(base + [try .hardened(0), try .normal(0)]))
        self.account = account
        self.scanKey = scan.privateKey
        self.spendKey = spend.publicKey
    }

    /// The keys of the address with label `m` (B_scan, B_m); m = 0 is the change label.
    ///
    /// - Throws: `SilentPaymentError.derivationFailed` in the negligible case of a tweak outside the group.
    public func address(label m: UInt32, network: Network) throws(SilentPaymentError) -> SilentPaymentAddress {
        SilentPaymentAddress(
            scanKey: scanKey.publicKey,
            spendKey: try SilentPaymentAddress.labelledSpendKey(scanPrivateKey: scanKey, spendKey: spendKey, label: m),
            network: network)
    }
}

extension BIP375 {
    /// The change label BIP352 reserves (m = 0).
    public static let changeLabel: UInt32 = 0

    /// The silent-payment outputs that pay this seed's own change, by output index, with the BIP352 account.
    ///
    /// An output counts only when it carries PSBT_OUT_SP_V0_LABEL = 0 and its scan key and spend key are this seed's
    /// (B_scan, and B_spend + hash(b_scan ‖ 0)·G) for the account its PSBT_OUT_BIP32_DERIVATION entries name under
    /// this seed's fingerprint (m/352'/coin'/account'/…), or account 0 when they name none. Everything else is a
    /// payment (the keys are re-derived here; the PSBT's claims are never trusted alone).
    public static func ownChange(_ psbt: PSBT, master: ExtendedPrivateKey, network: Network) -> [Int: UInt32] {
        var found: [Int: UInt32] = [:]
        var cache: [UInt32: SilentPaymentAddress] = [:]
        for output in outputs(of: psbt) where output.label == changeLabel {
            var accounts: [UInt32] = []
            for derivation in psbt.outputs[output.index].bip32Derivations
            where derivation.origin.fingerprint == master.fingerprint {
                let path = derivation.origin.path.components
                guard path.count == 5, path[0] == (try? .hardened(SilentPaymentKeys.purpose)), path[2].isHardened,
                    !accounts.contains(path[2].index)
                else { continue }
                accounts.append(path[2].index)
            }
            if accounts.isEmpty { accounts = [0] }
            for account in accounts {
                if cache[account] == nil {
                    cache[account] = try? SilentPaymentKeys(master: master, network: network, account: account)
                        .address(label: changeLabel, network: network)
                }
                guard let own = cache[account], own.scanKey == output.scanKey, own.spendKey == output.spendKey
                else { continue }
                found[output.index] = account
                break
            }
        }
        return found
    }
}
