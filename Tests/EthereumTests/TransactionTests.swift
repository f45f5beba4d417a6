import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Ethereum

/// EIP-155's example and ethereumjs's EIP-1559 cases: parse or build the unsigned transaction, hash it, sign it with
/// RFC 6979 and assemble the signed bytes, which must equal upstream's byte for byte.
@Suite("Ethereum transactions")
struct TransactionTests {
    struct EIP155File: Decodable {
        struct Example: Decodable {
            let chainId: UInt64
            let signingData: String
            let signingHash: String
            let privateKey: String
            let v: Int
            let signedTx: String
            let nonce: UInt64
            let gasprice: String
            let startgas: UInt64
            let to: String
            let value: String
        }
        let examples: [Example]
    }

    struct EIP1559Case: Decodable, Sendable, CustomTestStringConvertible {
        let nonce: UInt64
        let value: UInt64
        let gasLimit: UInt64
        let maxInclusionFeePerGas: UInt64
        let maxFeePerGas: UInt64
        let to: String
        let privateKey: String
        let signedTransactionRLP: String
        var testDescription: String { "nonce \(nonce)" }
    }

    static func key(_ hex: String) throws -> PrivateKey {
        try PrivateKey(secret: SecretBytes(copying: TestHex.bytes(String(hex.dropFirst(2)))))
    }

    static func hex(_ text: String) -> [UInt8] {
        TestHex.bytes(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text)
    }

    @Test("EIP-155 example: parse the signing data, hash, sign, assemble")
    func eip155() throws {
        let file = try Vectors.json("ethereum/eip155_example.json", as: EIP155File.self)
        #expect(file.examples.count == 1)
        for e in file.examples {
            let tx = try EthereumTransaction(unsignedSerialized: Self.hex(e.signingData))
            #expect(tx.chainID == e.chainId)
            #expect(tx.nonce == e.nonce)
            #expect(tx.gasLimit == e.startgas)
            #expect(tx.kind == .legacy(gasPrice: try UInt256(string: e.gasprice)))
            #expect(tx.to == (try EthereumAddress(string: e.to)))
            #expect(tx.value == Wei(try UInt256(string: e.value)))
            #expect(tx.unsignedSerialized() == Self.hex(e.signingData))
            #expect(tx.signingHash == Self.hex(e.signingHash))
            let signature = try Self.key(e.privateKey).signRecoverable(digest: tx.signingHash)
            #expect(try tx.v(for: signature) == UInt256(UInt64(e.v)))
            #expect(try tx.signedSerialized(signature: signature) == Self.hex(e.signedTx))
            let recovered = try signature.recoverPublicKey(digest: tx.signingHash)
            #expect(recovered == (try Self.key(e.privateKey)).publicKey)
        }
    }

    static let eip1559Cases: [EIP1559Case] = (try? Vectors.json("ethereum/ethereumjs_eip1559.json")) ?? []

    @Test("ethereumjs EIP-1559 file loads: 10 cases")
    func eip1559Count() { #expect(Self.eip1559Cases.count == 10) }

    @Test("ethereumjs EIP-1559: build (chain 7822), sign, equal upstream's signed transaction", arguments: eip1559Cases)
    func eip1559(c: EIP1559Case) throws {
        let tx = EthereumTransaction(
            kind: .dynamicFee(
                maxPriorityFeePerGas: UInt256(c.maxInclusionFeePerGas), maxFeePerGas: UInt256(c.maxFeePerGas)),
            chainID: 7822, nonce: c.nonce, gasLimit: c.gasLimit, to: try EthereumAddress(string: c.to),
            value: Wei(UInt256(c.value)), data: [])
        // The upstream field is the typed transaction wrapped once more as an RLP byte string.
        let expected = try RLP(serialized: Self.hex(c.signedTransactionRLP)).byteString()
        let signature = try Self.key(c.privateKey).signRecoverable(digest: tx.signingHash)
        #expect(try tx.signedSerialized(signature: signature) == expected)
        // The unsigned form round-trips through the parser EIP-4527 requests use.
        #expect(try EthereumTransaction(unsignedSerialized: tx.unsignedSerialized()) == tx)
    }

    @Test("Unsigned forms that are not canonical or not transactions are refused with their reason")
    func refusals() throws {
        let good = EthereumTransaction(
            kind: .dynamicFee(maxPriorityFeePerGas: UInt256(1), maxFeePerGas: UInt256(2)), chainID: 1, nonce: 0,
            gasLimit: 21000, to: nil, value: Wei(.zero), data: [])
        #expect(try EthereumTransaction(unsignedSerialized: good.unsignedSerialized()).to == nil)
        #expect(throws: TransactionError.unsupportedType(0x03)) {
            try EthereumTransaction(unsignedSerialized: [0x03] + good.unsignedSerialized().dropFirst())
        }
        var zeroChain = good
        zeroChain.chainID = 0
        #expect(throws: TransactionError.zeroChainID) {
            try EthereumTransaction(unsignedSerialized: zeroChain.unsignedSerialized())
        }
        // A nonce written with a leading zero byte (0x820001 instead of 0x01).
        let fields: [RLP] = [
            .integer(1), .bytes([0x00, 0x01]), .integer(1), .integer(2), .integer(21000), .bytes([]), .bytes([]),
            .bytes([]), .list([]),
        ]
        #expect(throws: TransactionError.rlp(.nonCanonicalInteger)) {
            try EthereumTransaction(unsignedSerialized: [0x02] + RLP.list(fields).serialized())
        }
        #expect(throws: TransactionError.self) { try EthereumTransaction(unsignedSerialized: [0x02, 0xC0]) }
        #expect(throws: TransactionError.empty) { try EthereumTransaction(unsignedSerialized: []) }
    }

    @Test("Legacy without chain id parses with chainID nil and signs with v = 27/28; worst-case fee is gas × price")
    func legacyNoChainID() throws {
        let fields: [RLP] = [
            .integer(0), .integer(1_000_000_000), .integer(21000), .bytes([UInt8](repeating: 0x11, count: 20)),
            .integer(1), .bytes([]),
        ]
        let tx = try EthereumTransaction(unsignedSerialized: RLP.list(fields).serialized())
        #expect(tx.chainID == nil)
        #expect(try tx.worstCaseFee() == Wei(UInt256(21_000_000_000_000)))
        let key = try Self.key("0x4646464646464646464646464646464646464646464646464646464646464646")
        let sig = try key.signRecoverable(digest: tx.signingHash)
        #expect(try tx.v(for: sig) == UInt256(27 + UInt64(sig.recoveryID)))
    }
}
