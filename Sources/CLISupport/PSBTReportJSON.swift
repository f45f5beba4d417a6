import Bitcoin
import Descriptors

/// `inspect --json` of a PSBT (PSBTReport.json): its transaction, amounts in sat, fee, signatures and warnings.
public struct PSBTReportJSON: Encodable, Sendable {
    /// One input.
    public struct Input: Encodable, Sendable {
        public let index: Int
        public let txid: String
        public let vout: Int
        @NullEncoded public var amount: UInt64?
        @NullEncoded public var address: String?
        public let finalized: Bool
        public let signatures: Int
        @NullEncoded public var sighash: Int?
        /// Who has signed a multisig input and how many signatures are missing (null for other inputs).
        @NullEncoded public var multisig: MultisigStatusJSON?
    }
    /// One output.
    public struct Output: Encodable, Sendable {
        public let index: Int
        @NullEncoded public var address: String?
        public let amount: UInt64
        public let script: String
    }
    public var type = "psbt"
    public let psbtVersion: Int
    public let network: String
    public let txid: String
    public let txVersion: Int
    public let locktime: Int
    @NullEncoded public var fee: UInt64?
    @NullEncoded public var feeRate: Double?
    public let vsize: Int
    public let complete: Bool
    public let inputs: [Input]
    public let outputs: [Output]
    public let warnings: [String]
}

/// The signature state of one multisig input (`inspect --json`, `sign --json`).
public struct MultisigStatusJSON: Encodable, Sendable {
    /// One cosigner key.
    public struct Cosigner: Encodable, Sendable {
        @NullEncoded public var fingerprint: String?
        public let key: String
        /// A signature that counts: present, and verified or not checkable.
        public let signed: Bool
        /// Whether a present signature verifies (null when there is none or it cannot be checked).
        @NullEncoded public var valid: Bool?
    }
    /// `multisig` (CHECKMULTISIG) or `multi_a` (taproot CHECKSIGADD).
    public let kind: String
    /// The registered (signer) or imported (watcher) wallet the input belongs to, when known.
    @NullEncoded public var wallet: String?
    public let threshold: Int
    public let signatures: Int
    public let missing: Int
    public let cosigners: [Cosigner]

    public init(_ status: MultisigSignatureStatus, wallet: String?) {
        kind = status.kind
        self.wallet = wallet
        threshold = status.threshold
        signatures = status.signatureCount
        missing = status.missing
        cosigners = status.cosigners.map {
            Cosigner(
                fingerprint: $0.fingerprint?.hexString, key: $0.key.hexString, signed: $0.hasSigned, valid: $0.isValid)
        }
    }
}
