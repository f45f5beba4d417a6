import Bitcoin
import BitcoinCrypto
import Codecs
import Foundation

/// A message signature as text: BIP322 `smp` (a witness stack), `ful` (the signed `to_sign`), `pof` (a finalized
/// PSBT proving funds), or a legacy 65-byte `signmessage` signature.
///
/// Text without a prefix is read as legacy when it decodes to 65 bytes with a header byte 27…42, else as a simple
/// signature (BIP322 lets a verifier assume the simple variant, for signatures made before the prefixes).
public enum MessageSignature: Sendable, Equatable {
    case simple(Witness)
    case full(Transaction)
    case proofOfFunds(PSBT)
    case legacy([UInt8])

    /// Parses signature text.
    ///
    /// - Throws: `MessageSignatureError.invalidEncoding` for text that is not base64 or does not parse.
    public init(string: String) throws(MessageSignatureError) {
        let text = string.trimmingCharacters(in: .whitespacesAndNewlines)
        let prefix = String(text.prefix(3))
        let body = ["smp", "ful", "pof"].contains(prefix) ? String(text.dropFirst(3)) : text
        guard !body.isEmpty else { throw .invalidEncoding("the signature is empty (signature too short)") }
        guard let bytes = try? Base64.decode(body, requirePadding: true) else {
            throw .invalidEncoding("the signature is not base64 (after any smp/ful/pof prefix)")
        }
        do {
            switch prefix {
            case "ful":
                let transaction = try Transaction(serialized: bytes)
                self = .full(transaction)
            case "pof":
                do { self = .proofOfFunds(try PSBT(serialized: bytes)) } catch {
                    throw MessageSignatureError.invalidEncoding("the pof signature is not a PSBT: \(error)")
                }
            case "smp":
                self = .simple(try Witness(serialized: bytes))
            default:
                if bytes.count == 65, (27...42).contains(bytes[0]) {
                    self = .legacy(bytes)
                } else {
                    self = .simple(try Witness(serialized: bytes))
                }
            }
        } catch let error as MessageSignatureError {
            throw error
        } catch {
            throw .invalidEncoding("error parsing signature as \(Self.variantName(prefix)) variant: \(error)")
        }
    }

    private static func variantName(_ prefix: String) -> String {
        switch prefix {
        case "ful": "full"
        case "pof": "proof-of-funds"
        default: "simple"
        }
    }

    /// The text form, with the BIP322 prefix (legacy: plain base64).
    public var description: String {
        switch self {
        case .simple(let witness): "smp" + Base64.encode(witness.serialized())
        case .full(let transaction): "ful" + Base64.encode(transaction.serialized())
        case .proofOfFunds(let psbt): "pof" + psbt.base64String
        case .legacy(let bytes): Base64.encode(bytes)
        }
    }

    /// The format's name: `bip322-simple`, `bip322-full`, `bip322-pof` or `legacy`.
    public var formatName: String {
        switch self {
        case .simple: "bip322-simple"
        case .full: "bip322-full"
        case .proofOfFunds: "bip322-pof"
        case .legacy: "legacy"
        }
    }
}

/// Errors reading a message signature.
public enum MessageSignatureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not base64 or its bytes do not parse as the variant.
    case invalidEncoding(String)

    public var description: String {
        switch self {
        case .invalidEncoding(let reason): reason
        }
    }
}

/// The result of checking a message signature (BIP322 "Verification Process": three states).
public enum MessageVerification: Sendable, Equatable {
    /// Valid; BIP322's "valid at time T and age S" (both 0 unless the signature sets time locks).
    case valid(lockTime: UInt32, sequence: UInt32)
    /// A script this verifier does not understand.
    case inconclusive(String)
    /// Some check failed.
    case invalid(String)
}
