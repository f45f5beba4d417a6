import Bitcoin
import Foundation

/// Something a reviewer of a PSBT should see before signing (BIP174 analysis, docs/architecture.md section 5).
public enum PSBTWarning: Sendable, Hashable, CustomStringConvertible {
    /// An input asks for a sighash type other than ALL (ECDSA) or DEFAULT (taproot).
    case nonDefaultSighash(input: Int, type: UInt32)
    /// An input carries no UTXO, so its amount (and the fee) is unknown.
    case missingUTXO(input: Int)
    /// A segwit v0 input has only a witness UTXO: its amount can't be verified against the previous transaction.
    case missingPreviousTransaction(input: Int)
    /// The witness UTXO and the previous transaction's output disagree (an amount lie).
    case utxoMismatch(input: Int)
    /// An output claims a derivation of one of our keys but its script is not the one that derivation gives.
    case changeMismatch(output: Int)
    /// An input claims a derivation of one of our keys but its script is not the one that derivation gives.
    case inputMismatch(input: Int)
    /// An input that is not ours (another signer must sign it).
    case foreignInput(input: Int)
    /// The PSBT names keys or versions of another network than `expected`.
    case networkMismatch(expected: Network, found: Network, detail: String)
    /// The fee is more than the amount sent to others.
    case feeAboveAmountSent(fee: Amount, sent: Amount)
    /// The fee rate is very high (above 1,000 sat/vB by default).
    case highFeeRate(satsPerVByte: Double)
    /// An OP_RETURN output (data written to the chain).
    case opReturn(output: Int)
    /// A transaction version other than 1 or 2.
    case unusualVersion(Int32)
    /// An nLockTime block height far past the chain's (estimated) height: the payment cannot be mined until then.
    /// `blocksAhead` is nil on test networks, whose height the clock cannot estimate.
    case farLocktimeHeight(height: UInt32, blocksAhead: Int64?)
    /// An nLockTime time more than 90 days ahead: the payment cannot be mined until then.
    case farLocktimeTime(time: UInt32, secondsAhead: Int64)
    /// An output of this signer's keys that is not the wallet being spent (another account, script type or wallet):
    /// counted as an external payment.
    case ownOutputOtherWallet(output: Int, path: String)
    /// An output of the wallet being spent at an index far past the inputs' (beyond any gap limit a wallet scans):
    /// counted as an external payment.
    case ownOutputFarIndex(output: Int, index: UInt32, limit: UInt64)
    /// An output to a witness version no wallet can spend yet (anyone can spend it once a soft fork defines it).
    case unknownWitnessVersion(output: Int, Int)

    public var description: String {
        switch self {
        case .nonDefaultSighash(let input, let type):
            "input \(input) asks for sighash type 0x\(String(type, radix: 16)) (not ALL/DEFAULT)"
        case .missingUTXO(let input): "input \(input) has no UTXO: its amount and the fee are unknown"
        case .missingPreviousTransaction(let input):
            "input \(input) (segwit v0) has no previous transaction: its amount cannot be verified"
        case .utxoMismatch(let input): "input \(input): the witness UTXO does not match the previous transaction"
        case .changeMismatch(let output):
            "OUTPUT \(output) CLAIMS TO BE CHANGE BUT ITS SCRIPT IS NOT OURS: treated as an external payment"
        case .inputMismatch(let input): "input \(input) claims one of our keys but its script is not ours"
        case .foreignInput(let input): "input \(input) is not ours"
        case .networkMismatch(let expected, let found, let detail):
            "PSBT is for \(found.rawValue), this signer is on \(expected.rawValue) (\(detail))"
        case .feeAboveAmountSent(let fee, let sent):
            "the fee (\(fee.btcString) BTC) is more than the amount sent (\(sent.btcString) BTC)"
        case .highFeeRate(let rate): "very high fee rate: \(String(format: "%.1f", rate)) sat/vB"
        case .opReturn(let output): "output \(output) is OP_RETURN data"
        case .unusualVersion(let version): "unusual transaction version \(version)"
        case .farLocktimeHeight(let height, let ahead?):
            "THE TRANSACTION CANNOT BE MINED BEFORE BLOCK \(height), about \(LockTimeReview.duration(seconds: ahead * 600)) "
                + "from now (nLockTime): whoever holds it can hold the payment until then; a normal wallet sets the "
                + "current height or 0"
        case .farLocktimeHeight(let height, nil):
            "THE TRANSACTION CANNOT BE MINED BEFORE BLOCK \(height) (nLockTime), far past any test chain's height: "
                + "a normal wallet sets the current height or 0"
        case .farLocktimeTime(let time, let ahead):
            "THE TRANSACTION CANNOT BE MINED BEFORE \(LockTimeReview.utc(time)), about "
                + "\(LockTimeReview.duration(seconds: ahead)) from now (nLockTime): whoever holds it can hold the "
                + "payment until then"
        case .ownOutputOtherWallet(let output, let path):
            "OUTPUT \(output) GOES TO A KEY OF THIS VAULT OUTSIDE THE WALLET BEING SPENT (\(path)): another account, "
                + "script type or wallet, which this wallet never scans; counted as an external payment"
        case .ownOutputFarIndex(let output, let index, let limit):
            "OUTPUT \(output) IS AT INDEX \(index), PAST THE GAP LIMIT (at most \(limit) for these inputs): a wallet "
                + "would never find it; counted as an external payment"
        case .unknownWitnessVersion(let output, let version):
            "output \(output) pays to witness version \(version), which no wallet can spend today (anyone can, once "
                + "a soft fork defines it)"
        }
    }
}
