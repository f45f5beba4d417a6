public import Bitcoin
public import BitcoinCrypto
import Descriptors
import Foundation

/// `export` (docs/signer.md): the accounts of the seed a coordinator imports, and their text as a descriptor,
/// Coldcard's generic JSON, or a BIP129 BSMS key record; the `--json` report beside them.
public struct AccountExport: Sendable {
    /// The exported form.
    public enum Format: String, Sendable, CaseIterable {
        case descriptor, json, ur, bsms
    }

    /// The accounts exported.
    public let accounts: [AccountKey]
    /// The account number.
    public let account: UInt32
    /// The network.
    public let network: Network
    let master: ExtendedPrivateKey

    /// The scripts exported: BSMS is the wsh-multi cosigner key; else `script`, or wpkh for a descriptor and every
    /// script for JSON and UR.
    public static func scripts(_ format: Format, script: AccountScript?) -> [AccountScript] {
        if format == .bsms { return [.wshMulti] }
        return script.map { [$0] } ?? (format == .descriptor ? [.wpkh] : AccountScript.allCases)
    }

    /// The accounts of `master` for `format`.
    ///
    /// - Throws: `AccountError` when an account cannot be derived.
    public init(
        master: ExtendedPrivateKey, format: Format, script: AccountScript?, account: UInt32, network: Network
    ) throws {
        accounts = try Self.scripts(format, script: script).map {
            try AccountKey(master: master, script: $0, account: account, network: network)
        }
        self.account = account
        self.network = network
        self.master = master
    }

    /// The first account's descriptor (its key-origin expression when it has no single-key descriptor).
    public var descriptorText: String {
        accounts.first.map { $0.descriptor?.description ?? $0.keyOriginExpression } ?? ""
    }

    /// Coldcard's generic JSON export, sorted and pretty-printed.
    public func genericJSON() throws -> String {
        let object = try GenericWalletExport.object(master: master, account: account, network: network)
        return String(decoding: object.prettySerialized(), as: UTF8.self)
    }

    /// The BIP129 key record of the cosigner key, signed with its key and encrypted under `token` (hex) when the
    /// token encrypts.
    ///
    /// - Throws: `BSMSError` for a bad token.
    public func bsmsRecord(token: String?) throws -> String {
        let cosigner = accounts[0]
        let bsmsToken = try token.map { try BSMSToken(hex: $0) } ?? .none
        let record = try BSMSKeyRecord(
            token: bsmsToken, key: cosigner.keyOriginExpression,
            description: "Airlock \(master.fingerprint.hexString) key",
            privateKey: try master.derive(cosigner.origin.path).privateKey)
        return bsmsToken.encrypts ? bsmsToken.encrypt(Array(record.text.utf8)) : record.text
    }

    /// `export --json`.
    public struct Report: Encodable, Sendable {
        /// One account.
        public struct Account: Encodable, Sendable {
            let script: String
            let origin: String
            let xpub: String
            let key: String
            let descriptor: String?
            let firstAddress: String?
        }
        let format: String
        let network: String
        let masterFingerprint: String
        let account: Int
        let data: String
        let accounts: [Account]
    }

    /// The `--json` report of the export in `format` whose text is `data`.
    public func report(format: Format, data: String) -> Report {
        Report(
            format: format.rawValue, network: network.rawValue, masterFingerprint: master.fingerprint.hexString,
            account: Int(account), data: data,
            accounts: accounts.map { key in
                Report.Account(
                    script: key.script.rawValue, origin: key.origin.description, xpub: key.xpub.base58String,
                    key: key.keyExpression, descriptor: key.descriptor?.description,
                    firstAddress: (try? key.address(change: false, index: 0))?.description)
            })
    }
}
