import Bitcoin
import Codecs
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
