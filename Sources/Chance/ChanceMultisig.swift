import Bitcoin
import BitcoinCrypto
import Codecs
import Foundation

/// The Chance wallet's `multisig:` text protocol for legacy P2SH multisig (docs/architecture.md section 3).
///
/// `multisig:` followed by one JSON object with exactly three fields: `rawTx` (hex of the unsigned legacy transaction,
/// empty scriptSigs), `redeemScriptHex` (the P2SH `OP_m <keys> OP_n OP_CHECKMULTISIG` script) and `keySignatures`, an
/// object whose keys are key positions in the redeem script (decimal, from 0, in the script's order) and whose values
/// list one DER signature with its SIGHASH_ALL byte (hex) per input, in input order. Every cosigner adds its own
/// position; once `m` positions are present the final transaction can be built.
///
/// Parsing is strict: unknown fields, malformed hex, a position outside the redeem script, a list of the wrong length,
/// a signature that is not strict low-S DER with SIGHASH_ALL, or one that does not verify for the key at its position
/// over this transaction's legacy signature hash are refused (`ChanceMultisigError`).
public struct ChanceMultisig: Sendable, Equatable {
    /// The text's prefix.
    public static let prefix = "multisig:"

    /// The unsigned transaction.
    public let transaction: Transaction
    /// The redeem script every input spends.
    public let redeemScript: Script
    /// The redeem script's threshold.
    public let threshold: Int
    /// The redeem script's keys, in script order (key position = index).
    public let keys: [PublicKey]
    /// Signatures by key position: one DER signature with its sighash byte per input, in input order.
    public private(set) var signatures: [Int: [[UInt8]]]

    /// A text for `transaction` spending `redeemScript` on every input, with `signatures` by key position.
    ///
    /// - Throws: `ChanceMultisigError` when the transaction is not unsigned, the script is not multisig or a
    ///   signature does not verify.
    public init(transaction: Transaction, redeemScript: Script, signatures: [Int: [[UInt8]]] = [:])
        throws(ChanceMultisigError)
    {
        guard case .multisig(let threshold, let keys) = redeemScript.template else { throw .notMultisigRedeemScript }
        for (index, input) in transaction.inputs.enumerated()
        where !input.scriptSig.isEmpty || !input.witness.isEmpty {
            throw .transactionNotUnsigned(input: index)
        }
        guard !transaction.inputs.isEmpty else { throw .invalidTransaction("no inputs") }
        self.transaction = transaction
        self.redeemScript = redeemScript
        self.threshold = threshold
        self.keys = keys
        self.signatures = [:]
        for (position, list) in signatures.sorted(by: { $0.key < $1.key }) {
            guard keys.indices.contains(position) else {
                throw .invalidPosition(String(position), keyCount: keys.count)
            }
            guard list.count == transaction.inputs.count else {
                throw .signatureCount(position: position, expected: transaction.inputs.count, actual: list.count)
            }
            for (input, signature) in list.enumerated() {
                try checkSignature(signature, position: position, input: input)
            }
            self.signatures[position] = list
        }
    }

    /// Parses a `multisig:` text (surrounding whitespace ignored).
    ///
    /// - Throws: `ChanceMultisigError`.
    public init(string: String) throws(ChanceMultisigError) {
        let text = string.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix(Self.prefix) else { throw .missingPrefix }
        // The strict parser: a member named twice (two signature lists for one key) is refused.
        let object: JSONValue
        do { object = try JSONValue(json: Array(text.dropFirst(Self.prefix.count).utf8)) } catch {
            switch error {
            case .malformed: throw .invalidJSON("malformed JSON")
            case .duplicateMember: throw .invalidJSON("\(error)")
            }
        }
        guard case .object = object else { throw .invalidJSON("not an object") }
        let known: Set<String> = ["rawTx", "redeemScriptHex", "keySignatures"]
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) { throw .unknownField(unknown) }
        guard let rawHex = object["rawTx"]?.stringValue else { throw .missingField("rawTx") }
        guard let scriptHex = object["redeemScriptHex"]?.stringValue else { throw .missingField("redeemScriptHex") }
        guard let signatureObject = object["keySignatures"]?.members else {
            throw .missingField("keySignatures")
        }
        let rawBytes = try Self.hex(rawHex, field: "rawTx")
        let transaction: Transaction
        do { transaction = try Transaction(serialized: rawBytes) } catch {
            throw .invalidTransaction(String(describing: error))
        }
        guard transaction.serialized() == rawBytes else {
            throw .invalidTransaction("not in its canonical serialization")
        }
        let script = Script(try Self.hex(scriptHex, field: "redeemScriptHex"))
        guard case .multisig(_, let keys) = script.template else { throw .notMultisigRedeemScript }
        var signatures: [Int: [[UInt8]]] = [:]
        for (name, value) in signatureObject.sorted(by: { $0.0 < $1.0 }) {
            guard let position = Self.position(name, keyCount: keys.count) else {
                throw .invalidPosition(name, keyCount: keys.count)
            }
            guard let list = value.arrayValue else { throw .missingField("keySignatures.\(position)") }
            var decoded: [[UInt8]] = []
            for (input, item) in list.enumerated() {
                guard let hex = item.stringValue else { throw .missingField("keySignatures.\(position)[\(input)]") }
                decoded.append(try Self.hex(hex, field: "keySignatures.\(position)[\(input)]"))
            }
            guard signatures[position] == nil else { throw .invalidPosition(name, keyCount: keys.count) }
            signatures[position] = decoded
        }
        try self.init(transaction: transaction, redeemScript: script, signatures: signatures)
    }

    /// The `multisig:` text: compact JSON, fields in the protocol's order, positions ascending.
    public var description: String {
        var parts: [String] = []
        for (position, list) in signatures.sorted(by: { $0.key < $1.key }) {
            parts.append("\"\(position)\":[" + list.map { "\"\($0.hexString)\"" }.joined(separator: ",") + "]")
        }
        return Self.prefix + "{\"rawTx\":\"\(transaction.serialized().hexString)\","
            + "\"redeemScriptHex\":\"\(redeemScript.hexString)\","
            + "\"keySignatures\":{" + parts.joined(separator: ",") + "}}"
    }

    /// The redeem script's keys as it pushes them (33 or 65 bytes), in script order.
    public var keyBytes: [[UInt8]] { Self.pushedKeys(redeemScript) }

    static func pushedKeys(_ script: Script) -> [[UInt8]] {
        let operations = (try? script.operations()) ?? []
        return operations.dropFirst().dropLast(2).compactMap(\.data)
    }

    /// The P2SH scriptPubKey every input spends.
    public var scriptPubKey: Script { .p2sh(ScriptHash(redeemScript)) }

    /// The key positions that have signed, ascending.
    public var signedPositions: [Int] { signatures.keys.sorted() }

    /// Whether `threshold` positions have signed (the final transaction can be built).
    public var isComplete: Bool { signatures.count >= threshold }

    /// The legacy signature hash (SIGHASH_ALL) of input `index` over the redeem script.
    public func signatureHash(input index: Int) throws(ChanceMultisigError) -> [UInt8] {
        do {
            return try SighashCache(transaction).legacySignatureHash(
                inputIndex: index, scriptCode: redeemScript, type: SighashType(rawValue: 1))
        } catch {
            throw .invalidTransaction("cannot compute the signature hash of input \(index): \(error)")
        }
    }

    /// Adds (or replaces) the signatures of key `position`, each checked against the key and this transaction.
    ///
    /// - Throws: `ChanceMultisigError`.
    public mutating func setSignatures(_ list: [[UInt8]], position: Int) throws(ChanceMultisigError) {
        guard keys.indices.contains(position) else { throw .invalidPosition(String(position), keyCount: keys.count) }
        guard list.count == transaction.inputs.count else {
            throw .signatureCount(position: position, expected: transaction.inputs.count, actual: list.count)
        }
        for (input, signature) in list.enumerated() { try checkSignature(signature, position: position, input: input) }
        signatures[position] = list
    }

    /// This text with the positions of `others` added (the same transaction and redeem script only).
    ///
    /// A position present in several texts keeps the first text's signatures (each verifies on its own).
    /// - Throws: `ChanceMultisigError.combineMismatch`.
    public func combined(with others: [ChanceMultisig]) throws(ChanceMultisigError) -> ChanceMultisig {
        var result = self
        for other in others {
            guard other.transaction == transaction else {
                throw .combineMismatch(
                    "they carry different transactions (\(transaction.txid) and \(other.transaction.txid))")
            }
            guard other.redeemScript == redeemScript else { throw .combineMismatch("their redeem scripts differ") }
            for (position, list) in other.signatures where result.signatures[position] == nil {
                result.signatures[position] = list
            }
        }
        return result
    }

    /// The final network transaction: each input's scriptSig `OP_0 <signatures of the first m positions> <redeem
    /// script>`.
    ///
    /// - Throws: `ChanceMultisigError.incomplete` while fewer than `threshold` positions have signed.
    public func finalTransaction() throws(ChanceMultisigError) -> Transaction {
        let positions = Array(signedPositions.prefix(threshold))
        guard positions.count == threshold else {
            throw .incomplete(input: 0, have: positions.count, need: threshold)
        }
        var final = transaction
        for index in final.inputs.indices {
            var operations: [ScriptOperation] = [.push([])]
            for position in positions {
                guard let list = signatures[position] else { continue }
                operations.append(.push(list[index]))
            }
            operations.append(.push(redeemScript.bytes))
            final.inputs[index].scriptSig = Script(operations)
        }
        return final
    }

    /// Checks one signature: strict DER, low S, SIGHASH_ALL, valid for the key at `position` over input `input`.
    private func checkSignature(_ signature: [UInt8], position: Int, input: Int) throws(ChanceMultisigError) {
        guard let type = signature.last, signature.count >= 9 else {
            throw .invalidSignature(position: position, input: input, reason: "too short")
        }
        guard type == 0x01 else {
            throw .invalidSignature(
                position: position, input: input,
                reason: "sighash type \(type); the protocol signs with SIGHASH_ALL (1) only")
        }
        let parsed: ECDSASignature
        do { parsed = try ECDSASignature(der: signature.dropLast()) } catch {
            throw .invalidSignature(position: position, input: input, reason: "not strict DER")
        }
        guard parsed.isLowS else { throw .invalidSignature(position: position, input: input, reason: "high S") }
        guard keys[position].verify(parsed, digest: try signatureHash(input: input)) else {
            throw .signatureDoesNotVerify(position: position, input: input)
        }
    }

    static func hex(_ text: String, field: String) throws(ChanceMultisigError) -> [UInt8] {
        guard !text.isEmpty else { throw .invalidHex(field: field, reason: "empty") }
        do { return try [UInt8](hex: text) } catch { throw .invalidHex(field: field, reason: "\(error)") }
    }

    /// A decimal key position without sign or leading zeros, below `keyCount`.
    static func position(_ text: String, keyCount: Int) -> Int? {
        guard !text.isEmpty, text.count <= 2, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            text == "0" || !text.hasPrefix("0"), let value = Int(text), value < keyCount
        else { return nil }
        return value
    }
}
