import Bitcoin
import Codecs

/// The "generic JSON" wallet export of Coldcard, which Sparrow, Specter, Nunchuk and others import: the master
/// fingerprint and xpub, then per BIP (`bip44`, `bip49`, `bip84`, `bip86`, `bip48_2`) the account's name,
/// fingerprint, derivation, xpub, SLIP-132 form (`_pub`), descriptor and first receive address.
///
/// As in Coldcard's file, `xfp` at the top is the master fingerprint (upper case) and `xfp` in each section is the
/// account key's own fingerprint; `chain` is `BTC`, `XTN` (testnet, signet) or `XRT` (regtest).
/// - SeeAlso: https://github.com/Coldcard/firmware/blob/master/docs/generic-wallet-export.md
public enum GenericWalletExport {
    /// The export as a JSON object, its members in the order of their names.
    ///
    /// - Throws: `BIP32Error` for an account ≥ 2^31.
    public static func object(master: ExtendedPrivateKey, account: UInt32, network: Network) throws(BIP32Error)
        -> JSONValue
    {
        let chain =
            switch network {
            case .main: "BTC"
            case .test, .signet: "XTN"
            case .regtest: "XRT"
            }
        var root: [String: JSONValue] = [
            "chain": .string(chain),
            "xfp": .string(master.fingerprint.hexString.uppercased()),
            "account": .number(account),
            "xpub": .string(master.extendedPublicKey.standardBase58String),
        ]
        let sections: [(String, AccountScript, String)] = [
            ("bip44", .pkh, "p2pkh"), ("bip49", .shWpkh, "p2wpkh-p2sh"), ("bip84", .wpkh, "p2wpkh"),
            ("bip86", .tr, "p2tr"), ("bip48_2", .wshMulti, "p2wsh"),
        ]
        for (key, script, name) in sections {
            let accountKey = try AccountKey(master: master, script: script, account: account, network: network)
            var section: [String: JSONValue] = [
                "name": .string(name),
                "xfp": .string(accountKey.xpub.fingerprint.hexString.uppercased()),
                "deriv": .string(accountKey.origin.path.description.replacingOccurrences(of: "h", with: "'")),
                "xpub": .string(accountKey.xpub.base58String),
            ]
            if script.slip132Hint != .standard { section["_pub"] = .string(accountKey.slip132String) }
            if let descriptor = accountKey.descriptor {
                section["desc"] = .string(descriptor.description)
                if let first = try? accountKey.address(change: false, index: 0) {
                    section["first"] = .string(first.description)
                }
            } else {
                section["desc"] = .string("\(accountKey.keyExpression)")
            }
            root[key] = .object(section)
        }
        return JSONValue.object(root).sortingMembers()
    }
}
