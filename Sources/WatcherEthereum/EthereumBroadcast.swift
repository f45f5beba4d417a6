import AirgapTransport
import BitcoinCrypto
import Codecs
import Ethereum
import Watcher

/// Checks an EIP-4527 `eth-signature` against the request the watcher made and assembles the signed transaction
/// (docs/architecture.md section 10): the request id must be one of the account's requests still awaiting a
/// signature, and the key recovered from the signature over the transaction's signing hash must be the sender's.
public enum EthereumBroadcast {
    /// The signed transaction and its hash.
    public struct Signed: Sendable, Equatable {
        public var record: EthereumTxRecord
        public var raw: [UInt8]
        public var hash: [UInt8]
    }

    /// Matches `signature` to a record of `records` and signs the transaction.
    ///
    /// - Throws: `EthereumWalletError.refused` for a signature without request id, for another request, for a
    ///   request broadcast before, or by another key; `.invalid` for a malformed signature.
    public static func assemble(_ signature: UREthSignature, records: [EthereumTxRecord]) throws(EthereumWalletError)
        -> Signed
    {
        guard let requestID = signature.requestID else {
            throw .refused("the signature names no request id, so it cannot be matched to a request")
        }
        let id = Hex.encode(requestID)
        guard let record = records.first(where: { $0.requestID == id }) else {
            throw .refused("the signature answers request \(id), which this account did not make")
        }
        guard record.status == .requested else {
            throw .refused(
                "request \(id) was broadcast already (\(record.status.rawValue)\(record.hash.map { ", \($0)" } ?? ""))")
        }
        let transaction: EthereumTransaction
        do { transaction = try EthereumTransaction(unsignedSerialized: record.unsigned) } catch {
            throw .invalid("the stored request does not parse: \(error)")
        }
        let bytes = signature.signature
        guard bytes.count >= 65 else { throw .invalid("the signature is shorter than r ‖ s ‖ v") }
        let v: UInt256
        do { v = try UInt256(bigEndian: bytes.dropFirst(64)) } catch { throw .invalid("the signature's v is too long") }
        let parity: UInt8
        switch v.uint64 {
        case 0, 27: parity = 0
        case 1, 28: parity = 1
        default: throw .invalid("the signature's v (\(v)) is not a y-parity of a typed transaction")
        }
        let recoverable: RecoverableSignature
        let recovered: PublicKey
        do {
            recoverable = try RecoverableSignature(compact: bytes.prefix(64), recoveryID: parity)
            recovered = try recoverable.recoverPublicKey(digest: transaction.signingHash)
        } catch {
            throw .invalid("the signature is not valid: \(error)")
        }
        let signer = EthereumAddress(publicKey: recovered)
        guard signer == record.from else {
            throw .refused("the signature was made by \(signer), not by the sender \(record.from)")
        }
        let raw: [UInt8]
        do { raw = try transaction.signedSerialized(signature: recoverable) } catch {
            throw .invalid("cannot assemble the transaction: \(error)")
        }
        return Signed(record: record, raw: raw, hash: Keccak256.hash(raw))
    }
}
