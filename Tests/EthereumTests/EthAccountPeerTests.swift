import Bitcoin
import BitcoinCrypto
import Codecs
import Foundation
import SeedBackup
import TestSupport
import Testing

@testable import Ethereum

/// Values computed by eth-account 0.14 (a peer not written here) in `Tests/Vectors/ethereum/eth_account_fixture.json`,
/// made by `Tests/interop/make_eth_fixture.py`: addresses 0–20 from a mnemonic, EIP-1559/EIP-2930/EIP-155
/// transactions and EIP-191/EIP-712 signatures, which must equal ours byte for byte (both sides use RFC 6979).
@Suite("Ethereum against eth-account")
struct EthAccountPeerTests {
    struct Fixture: Decodable {
        struct Address: Decodable {
            let path: String
            let address: String
        }
        struct Signed: Decodable {
            let signingHash: String
            let raw: String
            let v: UInt64
        }
        struct Signature: Decodable {
            let signature: String
        }
        struct Personal: Decodable {
            let messageHex: String
            let signature: String
        }
        let mnemonic: String
        let addresses: [Address]
        let transactions: [String: Signed]
        let personal: Personal
        let eip712Mail: Signature
    }

    static func fixture() throws -> Fixture { try Vectors.json("ethereum/eth_account_fixture.json") }

    static func root(_ f: Fixture) throws -> ExtendedPrivateKey {
        try ExtendedPrivateKey(seed: Mnemonic(phrase: f.mnemonic).seed())
    }

    static func key(_ f: Fixture, index: Int) throws -> PrivateKey {
        try root(f).derive(DerivationPath(string: "m/44'/60'/0'/0/\(index)")).privateKey
    }

    @Test("Addresses 0–20 at m/44'/60'/0'/0/i equal eth-account's (EIP-55 form included)")
    func addresses() throws {
        let f = try Self.fixture()
        #expect(f.addresses.count == 21)
        let root = try Self.root(f)
        for entry in f.addresses {
            let key = try root.derive(DerivationPath(string: entry.path)).privateKey
            #expect(key.ethereumAddress.checksummed == entry.address)
        }
    }

    /// The transactions the script built, as our parser reads them from eth-account's raw bytes: strip the
    /// signature and rebuild the unsigned form.
    static func unsigned(fromSigned raw: [UInt8]) throws -> EthereumTransaction {
        let typeByte: UInt8? = raw[0] < 0xC0 ? raw[0] : nil
        let body = try RLP(serialized: typeByte == nil ? raw : Array(raw.dropFirst())).listItems()
        if let typeByte {
            return try EthereumTransaction(
                unsignedSerialized: [typeByte] + RLP.list(Array(body.dropLast(3))).serialized())
        }
        // Legacy EIP-155: replace v, r, s by chainId, 0, 0 (chainId from v = 2·chainId + 35 + parity).
        let v = try body[6].uint64()
        let chainID = (v - 35) / 2
        let fields = Array(body.prefix(6)) + [.integer(chainID), .bytes([]), .bytes([])]
        return try EthereumTransaction(unsignedSerialized: RLP.list(fields).serialized())
    }

    @Test("EIP-1559, EIP-2930 and EIP-155 transactions signed by eth-account: same hash, same signed bytes")
    func transactions() throws {
        let f = try Self.fixture()
        #expect(Set(f.transactions.keys) == ["eip1559", "eip2930", "eip155"])
        let key = try Self.key(f, index: 0)
        for (name, signed) in f.transactions.sorted(by: { $0.key < $1.key }) {
            let raw = TestHex.bytes(signed.raw)
            let tx = try Self.unsigned(fromSigned: raw)
            #expect(TestHex.string(tx.signingHash) == signed.signingHash, "\(name)")
            let signature = try key.signRecoverable(digest: tx.signingHash)
            #expect(try tx.signedSerialized(signature: signature) == raw, "\(name)")
            #expect(try tx.v(for: signature) == UInt256(signed.v), "\(name)")
        }
    }

    @Test("EIP-191 personal message: our signature equals eth-account's and recovers to the address")
    func personal() throws {
        let f = try Self.fixture()
        let key = try Self.key(f, index: 0)
        let message = PersonalMessage(bytes: TestHex.bytes(f.personal.messageHex))
        let signature = EthereumSignature.message(try key.signRecoverable(digest: message.signingHash))
        #expect(TestHex.string(signature.bytes) == f.personal.signature)
        let recovered = try signature.signature.recoverPublicKey(digest: message.signingHash)
        #expect(recovered.ethereumAddress == key.ethereumAddress)
        #expect(message.printableText == "Airlock personal message ✓")
    }

    @Test("EIP-712 Mail: our signature equals eth-account's and recovers to the address")
    func typedData() throws {
        let f = try Self.fixture()
        let key = try Self.key(f, index: 0)
        let root = try JSONValue(json: Array(try Vectors.data("ethereum/eip712/eip712_example_mail.json")))
        let data = try TypedData(value: try #require(root["typed_data"]))
        let hash = try data.signingHash()
        let signature = EthereumSignature.message(try key.signRecoverable(digest: hash))
        #expect(TestHex.string(signature.bytes) == f.eip712Mail.signature)
        #expect(try signature.signature.recoverPublicKey(digest: hash).ethereumAddress == key.ethereumAddress)
        // A different message does not recover to the same key (the check can fail).
        let other = try signature.signature.recoverPublicKey(digest: Keccak256.hash([1]))
        #expect(other.ethereumAddress != key.ethereumAddress)
    }
}
