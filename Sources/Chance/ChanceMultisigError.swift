import Bitcoin

/// Why a Chance wallet `multisig:` text is refused (docs/architecture.md section 3); every case is invalid input.
public enum ChanceMultisigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text does not start with `multisig:`.
    case missingPrefix
    /// The part after `multisig:` is not one JSON object.
    case invalidJSON(String)
    /// A field the protocol does not define.
    case unknownField(String)
    /// A required field is absent or has the wrong JSON type.
    case missingField(String)
    /// A field's hex text is malformed.
    case invalidHex(field: String, reason: String)
    /// `rawTx` is not one transaction (trailing bytes, witness data, …).
    case invalidTransaction(String)
    /// `rawTx` has a non-empty scriptSig or witness on an input: the protocol carries the unsigned transaction.
    case transactionNotUnsigned(input: Int)
    /// The redeem script is not `OP_m <keys> OP_n OP_CHECKMULTISIG`.
    case notMultisigRedeemScript
    /// A key position that is not a decimal index of a key in the redeem script.
    case invalidPosition(String, keyCount: Int)
    /// A position's list does not hold one signature per input.
    case signatureCount(position: Int, expected: Int, actual: Int)
    /// A signature is not strict DER with the SIGHASH_ALL byte.
    case invalidSignature(position: Int, input: Int, reason: String)
    /// A signature does not verify for the key at its position over this transaction's input: a signature under the
    /// wrong position, or one for another transaction.
    case signatureDoesNotVerify(position: Int, input: Int)
    /// Two texts of different transactions or redeem scripts were combined.
    case combineMismatch(String)
    /// A PSBT that the protocol cannot carry (another script type, inputs with different redeem scripts, a key that
    /// signed only some inputs).
    case notRepresentable(String)
    /// A previous transaction that does not match the input it is given for.
    case previousTransactionMismatch(input: Int, reason: String)
    /// The final transaction asked for while an input lacks signatures.
    case incomplete(input: Int, have: Int, need: Int)

    public var description: String {
        switch self {
        case .missingPrefix: "not a multisig: text (it must start with 'multisig:')"
        case .invalidJSON(let reason): "multisig: text: the part after 'multisig:' is not a JSON object (\(reason))"
        case .unknownField(let name): "multisig: text: unknown field '\(DisplayText.clean(name))'"
        case .missingField(let name): "multisig: text: field '\(name)' is missing or has the wrong type"
        case .invalidHex(let field, let reason): "multisig: text: \(field) is not hex (\(reason))"
        case .invalidTransaction(let reason): "multisig: text: rawTx is not a transaction (\(reason))"
        case .transactionNotUnsigned(let input):
            "multisig: text: rawTx input \(input) has a scriptSig or witness (the protocol carries the unsigned "
                + "transaction)"
        case .notMultisigRedeemScript:
            "multisig: text: redeemScriptHex is not a multisig script (OP_m <keys> OP_n OP_CHECKMULTISIG)"
        case .invalidPosition(let text, let count):
            "multisig: text: key position '\(DisplayText.clean(text))' is not one of the redeem script's "
                + "\(count) key positions (0 to \(count - 1))"
        case .signatureCount(let position, let expected, let actual):
            "multisig: text: key position \(position) holds \(actual) signature(s), expected one per input "
                + "(\(expected))"
        case .invalidSignature(let position, let input, let reason):
            "multisig: text: the signature of key position \(position) on input \(input) is invalid (\(reason))"
        case .signatureDoesNotVerify(let position, let input):
            "multisig: text: the signature of key position \(position) on input \(input) does not verify for "
                + "that key over this transaction (a signature under the wrong position, or for another transaction)"
        case .combineMismatch(let reason): "multisig: texts cannot be combined: \(reason)"
        case .notRepresentable(let reason): "cannot be written as a multisig: text: \(reason)"
        case .previousTransactionMismatch(let input, let reason):
            "previous transaction for input \(input): \(reason)"
        case .incomplete(let input, let have, let need):
            "input \(input) has \(have) of the \(need) signatures it needs"
        }
    }
}
