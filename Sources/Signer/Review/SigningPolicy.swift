import Bitcoin
import Descriptors
import Foundation

/// What the signer refuses unless explicitly allowed (docs/architecture.md section 5).
public struct SigningPolicy: Sendable, Equatable {
    /// The highest fee rate signed, in sat/vB (`--max-fee-rate`, default 1,000).
    public var maxFeeRateSatsPerVByte: Double = 1000
    /// Sign sighash types other than ALL/DEFAULT.
    public var allowNonDefaultSighash = false
    /// Sign segwit v0 inputs without their previous transaction.
    public var allowMissingPreviousTransaction = false
    /// The highest fee signed, whatever the rate (`--max-fee`, default 0.05 BTC): a cap no size claim can move.
    public var maxFee: Amount = Self.defaultMaxFee
    /// Sign inputs of scripts no registered wallet describes (script paths, foreign scripts, unregistered multisig).
    public var allowUnregistered = false
    /// What counts as change (docs/architecture.md section 5: the wallet being spent, at most 10,000 past the inputs' indexes).
    public var changeRule = PSBTAnalysis.ChangeRule()
    /// The network of this signer's keys; a PSBT for another network is refused.
    public var network: Network
    /// The clock a far nLockTime is judged by (nil: the system clock when the review is made); set in tests.
    public var now: Date?

    /// 0.05 BTC: the default absolute fee cap.
    public static let defaultMaxFee: Amount = (try? Amount(sats: 5_000_000)) ?? .maxMoney

    /// The default policy for `network`.
    public init(network: Network) { self.network = network }

    /// The signing options that carry this policy's widenings into the signer.
    public var signingOptions: SigningOptions {
        SigningOptions(
            allowNonDefaultSighash: allowNonDefaultSighash,
            allowMissingPreviousTransaction: allowMissingPreviousTransaction)
    }
}

/// A reason the signer will not sign.
public enum SigningRefusal: Sendable, Hashable, CustomStringConvertible {
    /// Nothing in the PSBT belongs to this signer.
    case nothingToSign
    /// An input of ours asks for a non-default sighash.
    case nonDefaultSighash(input: Int, type: UInt32)
    /// The fee rate is above the maximum.
    case feeRateTooHigh(satsPerVByte: Double, maximum: Double)
    /// The fee is more than the amount sent to others.
    case feeAboveAmountSent(fee: Amount, sent: Amount)
    /// The fee cannot be known (an input's UTXO is missing).
    case unknownFee
    /// An input of ours lacks its previous transaction (segwit v0).
    case missingPreviousTransaction(input: Int)
    /// The witness UTXO and the previous transaction disagree.
    case utxoMismatch(input: Int)
    /// The PSBT is for another network.
    case wrongNetwork(expected: Network, found: Network)
    /// The fee is above the absolute cap.
    case feeTooHigh(fee: Amount, maximum: Amount)
    /// An input claims a key of this vault but its script is not what that key's derivation gives.
    case inputScriptMismatch(input: Int)
    /// Inputs this vault holds a key for whose script no registered wallet describes.
    case unregisteredInputs([Int])
    /// An input asks for SIGHASH_SINGLE without an output at its index (the legacy "digest 1" signature).
    case sighashSingleWithoutOutput(input: Int)
    /// A Chance `multisig:` text whose redeem script no registered `sh(multi/sortedmulti)` wallet derives.
    case unregisteredRedeemScript
    /// Legacy inputs whose previous transactions were not given: their amounts, and the fee, are unknown.
    case legacyAmountsUnknown([Int])
    /// A silent-payment rule of BIP375 refuses the PSBT (a bad proof, a script the shares refute, a forbidden input or
    /// sighash, or shares still missing), with the reason.
    case silentPayment(String)

    public var description: String {
        switch self {
        case .nothingToSign: "no input of this PSBT belongs to this vault"
        case .nonDefaultSighash(let input, let type):
            "input \(input) asks for sighash type 0x\(String(type, radix: 16)); only ALL/DEFAULT are signed"
        case .feeRateTooHigh(let rate, let maximum):
            "fee rate \(Self.format(rate)) sat/vB is above the maximum of \(Self.format(maximum)) sat/vB (--max-fee-rate)"
        case .feeAboveAmountSent(let fee, let sent):
            "the fee (\(fee.btcString) BTC) is more than the amount sent (\(sent.btcString) BTC)"
        case .unknownFee: "the fee cannot be verified: an input's UTXO is missing"
        case .missingPreviousTransaction(let input):
            "input \(input) has no previous transaction (non_witness_utxo); its amount cannot be verified "
                + "(--allow-missing-prev-tx to sign anyway)"
        case .utxoMismatch(let input): "input \(input): the witness UTXO contradicts the previous transaction"
        case .wrongNetwork(let expected, let found):
            "the PSBT is for \(found.rawValue) but this vault is on \(expected.rawValue)"
        case .feeTooHigh(let fee, let maximum):
            "the fee (\(fee.btcString) BTC) is above the maximum of \(maximum.btcString) BTC (--max-fee)"
        case .inputScriptMismatch(let input):
            "input \(input) claims a key of this vault, but its script is not the one that key's derivation gives"
        case .unregisteredInputs(let inputs):
            (inputs.count == 1
                ? "input \(inputs[0]) spends" : "inputs \(inputs.map(String.init).joined(separator: ", ")) spend")
                + " a script "
                + "of no registered wallet (multisig, script path or foreign script): their change cannot be verified; "
                + "register the wallet (`multisig register`) or pass --allow-unregistered"
        case .unregisteredRedeemScript:
            "the redeem script belongs to no registered sh(multi)/sh(sortedmulti) wallet of this vault (receive or "
                + "change branch, first 1,000 indexes): register the wallet first (multisig register)"
        case .legacyAmountsUnknown(let inputs):
            "the amounts of legacy input(s) \(inputs.map(String.init).joined(separator: ", ")) are unknown (a "
                + "multisig: text carries no previous transactions), so the fee cannot be checked: give them with "
                + "--prev-tx FILE"
        case .sighashSingleWithoutOutput(let input):
            "input \(input) asks for SIGHASH_SINGLE but there is no output \(input): never signed"
        case .silentPayment(let reason): reason
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
    }
}
