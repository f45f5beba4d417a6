import Bitcoin
import BitcoinCrypto

/// Errors from silent-payment addresses (BIP352), proofs (BIP374) and PSBT fields (BIP375).
///
/// Each message says what is wrong in plain words; `failureKind` tells a refusal by policy (a share whose proof fails,
/// a script that does not match the shares, an input or sighash BIP375 forbids) from input that is malformed.
public enum SilentPaymentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not a silent-payment address (with what is wrong).
    case invalidAddress(String)
    /// The address is for another network than the wallet's.
    case wrongNetwork(address: String, expected: Network)
    /// A PSBT field or combination of fields that BIP375 does not allow (malformed data).
    case invalidPSBT(String)
    /// An input that BIP375 forbids beside silent-payment outputs (segwit v2 or later).
    case forbiddenInput(index: Int, reason: String)
    /// A sighash other than SIGHASH_ALL on a PSBT with silent-payment outputs.
    case forbiddenSighash(index: Int, sighash: UInt32)
    /// An ECDH share whose DLEQ proof is missing or does not verify.
    case badProof(String)
    /// An output script that is not the one the ECDH shares give.
    case scriptMismatch(output: Int)
    /// The shares needed to compute an output are not all there yet.
    case incomplete(String)
    /// The keys sum to zero or another BIP352 computation failed (no output can be made with these inputs).
    case derivationFailed(String)
    /// More outputs pay one scan key than BIP352's K_max allows (how many, and the address or output named).
    case tooManyOutputs(count: Int, recipient: String)

    public var description: String {
        switch self {
        case .invalidAddress(let reason): "not a silent-payment address: \(reason)"
        case .wrongNetwork(let address, let expected):
            "the silent-payment address \(address) is not for \(expected.rawValue); use an address of this wallet's network"
        case .invalidPSBT(let reason): "the PSBT's silent-payment fields are invalid: \(reason)"
        case .forbiddenInput(let index, let reason):
            "input \(index) cannot be spent beside a silent payment: \(reason)"
        case .forbiddenSighash(let index, let sighash):
            "input \(index) asks for sighash type \(sighash); a transaction paying a silent-payment address must be "
                + "signed with SIGHASH_ALL (1)"
        case .badProof(let reason):
            "refused: an ECDH share of this silent payment does not prove its key (\(reason)); "
                + "the coordinator or another signer may be trying to redirect the payment"
        case .scriptMismatch(let output):
            "refused: output \(output) pays a script that is not the silent payment the shares give; "
                + "the coordinator may be trying to redirect the payment"
        case .incomplete(let reason): "the silent payment is not complete yet: \(reason)"
        case .derivationFailed(let reason): "no silent-payment output can be made: \(reason)"
        case .tooManyOutputs(let count, let recipient):
            "\(count) outputs pay one silent-payment scan key (\(recipient)); BIP352 allows at most "
                + "\(BIP352.maxRecipientsPerGroup) per scan key in one transaction (K_max): split the payment into "
                + "several transactions"
        }
    }
}
