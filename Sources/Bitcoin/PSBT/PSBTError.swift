/// Where in a PSBT a problem was found.
public enum PSBTLocation: Sendable, Hashable, CustomStringConvertible {
    /// The global map.
    case global
    /// The map of input `n` (0-based).
    case input(Int)
    /// The map of output `n` (0-based).
    case output(Int)

    public var description: String {
        switch self {
        case .global: "global map"
        case .input(let index): "input \(index)"
        case .output(let index): "output \(index)"
        }
    }
}

/// Errors from decoding, validating, combining, signing or finalizing a PSBT (BIP174, BIP370, BIP371, BIP373).
///
/// The messages follow Bitcoin Core's wording where Core has one, so users can compare.
public enum PSBTError: Error, Equatable, Sendable {
    /// The data does not start with the magic bytes `psbt\xff`.
    case invalidMagic
    /// The text is neither base64 nor hex of a PSBT.
    case invalidEncoding
    /// The bytes end early or a length does not fit (with the position in the data).
    case truncated(offset: Int)
    /// A compact-size length is not minimally encoded or too large.
    case nonCanonicalLength(offset: Int)
    /// A value's content is shorter or longer than its length prefix says.
    case valueSizeMismatch(field: String, location: PSBTLocation)
    /// The same key appears twice in one map.
    case duplicateKey(keyHex: String, location: PSBTLocation)
    /// A key has the wrong length for its type.
    case invalidKeySize(field: String, location: PSBTLocation, expected: String, actual: Int)
    /// A value has the wrong length or content for its type.
    case invalidValue(field: String, location: PSBTLocation, reason: String)
    /// A public key in a key or value is not a valid point.
    case invalidPublicKey(field: String, location: PSBTLocation)
    /// A BIP32 key origin's length is zero or not a multiple of 4.
    case invalidKeyOrigin(field: String, location: PSBTLocation)
    /// A partial signature is not a strictly encoded DER signature with a defined sighash byte.
    case invalidSignatureEncoding(location: PSBTLocation)
    /// A map has no separator byte at its end.
    case missingSeparator(location: PSBTLocation)
    /// A PSBTv0 has no unsigned transaction.
    case missingUnsignedTransaction
    /// The unsigned transaction has scriptSigs or witnesses, or could not be parsed.
    case invalidUnsignedTransaction(reason: String)
    /// A field that the PSBT version does not allow (for example PSBT_IN_PREVIOUS_TXID in v0).
    case fieldNotAllowed(field: String, version: UInt32, location: PSBTLocation)
    /// A field the PSBT version requires is absent.
    case missingRequiredField(field: String, location: PSBTLocation)
    /// A PSBT version other than 0 or 2.
    case unsupportedVersion(UInt32)
    /// The number of input maps differs from the transaction's inputs.
    case inputCountMismatch(expected: Int, actual: Int)
    /// The number of output maps differs from the transaction's outputs.
    case outputCountMismatch(expected: Int, actual: Int)
    /// A non-witness UTXO's txid differs from the input's outpoint.
    case nonWitnessUTXOMismatch(input: Int)
    /// An input spends an output index the previous transaction does not have.
    case outputIndexOutOfRange(input: Int)
    /// Bytes follow the last output map.
    case trailingBytes(count: Int)
    /// PSBTs to combine are for different transactions.
    case combineMismatch
    /// An input has no UTXO (witness or non-witness), so it cannot be signed or its amount known.
    case missingUTXO(input: Int)
    /// An input asks for a sighash type the signer refuses without an explicit option.
    case nonStandardSighash(UInt32, input: Int)
    /// A signer check of BIP174 failed (with the reason).
    case signerCheckFailed(input: Int, reason: String)
    /// The input cannot be finalized (missing signatures or scripts).
    case cannotFinalize(input: Int, reason: String)
    /// The PSBT is not fully finalized, so no transaction can be extracted.
    case notFinalized(input: Int)
    /// The locktimes of the inputs cannot be satisfied together (BIP370).
    case conflictingLocktimes
}

extension PSBTError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidMagic: "Invalid PSBT magic bytes"
        case .invalidEncoding: "not a PSBT: the text is neither base64 nor hex of one"
        case .truncated(let offset): "PSBT data ends early (at byte \(offset))"
        case .nonCanonicalLength(let offset): "non-canonical or oversized compact size at byte \(offset)"
        case .valueSizeMismatch(let field, let location):
            "Size of value was not the stated size (\(field), \(location))"
        case .duplicateKey(let key, let location): "Duplicate Key, \(location) key \"\(key)\" already provided"
        case .invalidKeySize(let field, let location, let expected, let actual):
            "Size of key was not \(expected) for the type \(field) (\(location), got \(actual))"
        case .invalidValue(let field, let location, let reason): "\(field) in \(location): \(reason)"
        case .invalidPublicKey(let field, let location): "Invalid pubkey in \(field) (\(location))"
        case .invalidKeyOrigin(let field, let location): "Invalid length for HD key path in \(field) (\(location))"
        case .invalidSignatureEncoding(let location): "Signature is not a valid encoding (\(location))"
        case .missingSeparator(let location): "Separator is missing at the end of the \(location)"
        case .missingUnsignedTransaction: "No unsigned transaction was provided"
        case .invalidUnsignedTransaction(let reason): "invalid unsigned transaction: \(reason)"
        case .fieldNotAllowed(let field, let version, let location):
            "\(field) is not allowed in PSBTv\(version) (\(location))"
        case .missingRequiredField(let field, let location): "\(field) is required (\(location))"
        case .unsupportedVersion(let version): "Unsupported PSBT version \(version)"
        case .inputCountMismatch(let expected, let actual):
            "Inputs provided does not match the number of inputs in transaction (\(actual) of \(expected))"
        case .outputCountMismatch(let expected, let actual):
            "Outputs provided does not match the number of outputs in transaction (\(actual) of \(expected))"
        case .nonWitnessUTXOMismatch(let input): "Non-witness UTXO does not match outpoint hash (input \(input))"
        case .outputIndexOutOfRange(let input): "Input specifies output index that does not exist (input \(input))"
        case .trailingBytes(let count): "extra data after PSBT (\(count) bytes)"
        case .combineMismatch: "PSBTs not compatible (different transactions)"
        case .missingUTXO(let input): "input \(input) has no UTXO (neither witness nor non-witness)"
        case .nonStandardSighash(let type, let input):
            "input \(input) asks for sighash type 0x\(String(type, radix: 16))"
        case .signerCheckFailed(let input, let reason): "input \(input) fails the signer checks: \(reason)"
        case .cannotFinalize(let input, let reason): "input \(input) cannot be finalized: \(reason)"
        case .notFinalized(let input): "input \(input) is not finalized"
        case .conflictingLocktimes: "the inputs' required locktimes cannot be satisfied together"
        }
    }
}
