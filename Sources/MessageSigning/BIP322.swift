import Bitcoin
import BitcoinCrypto

/// BIP322 generic signed messages: the message hash and the two virtual transactions `to_spend` and `to_sign`.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0322.mediawiki (version 2.0.0)
public enum BIP322 {
    /// The BIP340 tag of the message hash.
    public static let messageTag = TaggedHash(tag: "BIP0322-signed-message")

    /// `sha256_tag(message)`, the message as-is without length prefix.
    public static func messageHash(_ message: some Sequence<UInt8>) -> [UInt8] { messageTag.hash(message) }

    /// The `to_spend` transaction: version 0, the input `000…000:FFFFFFFF` with scriptSig `OP_0 PUSH32[hash]`, one
    /// output of 0 paying `challenge`.
    public static func toSpend(message: some Sequence<UInt8>, challenge: Script) -> Transaction {
        let zero = Txid(unchecked: [UInt8](repeating: 0, count: 32))
        let input = TxIn(
            previousOutput: OutPoint(txid: zero, vout: 0xFFFF_FFFF),
            scriptSig: Script([.push(.op0, []), .push(messageHash(message))]), sequence: SequenceNumber(rawValue: 0))
        return Transaction(
            version: 0, inputs: [input], outputs: [TxOut(value: .zero, scriptPubKey: challenge)], lockTime: .none)
    }

    /// The unsigned `to_sign` transaction spending `to_spend` (version, lock time and sequence 0 unless given),
    /// with the single output `OP_RETURN` of 0.
    public static func toSign(
        toSpend: Transaction, version: Int32 = 0, lockTime: LockTime = .none,
        sequence: SequenceNumber = SequenceNumber(rawValue: 0)
    ) -> Transaction {
        let input = TxIn(
            previousOutput: OutPoint(txid: toSpend.txid, vout: 0), scriptSig: .empty, sequence: sequence)
        return Transaction(
            version: version, inputs: [input], outputs: [TxOut(value: .zero, scriptPubKey: Script([0x6A]))],
            lockTime: lockTime)
    }
}
