import Bitcoin
import BitcoinCrypto
import Ethereum
import Foundation
import Testing

@testable import EthereumSigner
@testable import Signer

/// The eth-sign-request flow (`EthereumSignFlow`).
///
/// The request's path and address read, the imported key named in the
/// review, the key refusals, the journal written on signing. Each rule with its bad case and a control.
@Suite("Ethereum sign flow")
struct EthereumSignFlowTests {
    static let password = SecretBytes(utf8: "correct horse")

    static func unlocked() throws -> UnlockedVault {
        let (vault, _) = try VaultTests.makeVault()
        return try vault.unlock(password: password)
    }

    static func reopen(_ unlocked: UnlockedVault) throws -> UnlockedVault {
        try Vault(path: unlocked.vault.path).unlock(password: password)
    }

    static var transaction: [UInt8] {
        EthereumTransaction(
            kind: .dynamicFee(maxPriorityFeePerGas: UInt256(1_000_000_000), maxFeePerGas: UInt256(30_000_000_000)),
            chainID: 1, nonce: 0, gasLimit: 21_000, to: EthereumAddressFixture.bytes(0xCD),
            value: Wei(UInt256(1_000)), data: []
        ).unsignedSerialized()
    }

    static let steps: [EthereumSignFlow.PathStep] = [
        .index(44, hardened: true), .index(60, hardened: true), .index(0, hardened: true), .index(0, hardened: false),
        .index(0, hardened: false),
    ]

    static func request(
        steps: [EthereumSignFlow.PathStep] = steps, address: [UInt8]? = nil
    ) throws(EthereumRequestError) -> EthereumSigningSession.Request {
        try EthereumSignFlow.request(
            signData: transaction, dataType: .typedTransaction, chainID: 1, path: steps, address: address, origin: nil)
    }

    @Test("a wildcard, a range or an index of 2^31 in the path is not a plain path; m/44'/60'/0'/0/0 is")
    func plainPath() throws {
        #expect(throws: EthereumRequestError.notAPlainPath) { try Self.request(steps: Self.steps + [.notAnIndex]) }
        #expect(throws: EthereumRequestError.notAPlainPath) {
            try Self.request(steps: [.index(0x8000_0000, hardened: false)])
        }
        let request = try Self.request()
        #expect(request.path == (try DerivationPath(string: "m/44'/60'/0'/0/0")))
        #expect(try Self.request(steps: []).path.components.isEmpty)
    }

    @Test("an address field of 19 or 21 bytes is refused as input; 20 bytes is read")
    func addressLength() throws {
        #expect(throws: EthereumRequestError.addressLength(19)) {
            try Self.request(address: Array(repeating: 1, count: 19))
        }
        #expect(throws: EthereumRequestError.addressLength(21)) {
            try Self.request(address: Array(repeating: 1, count: 21))
        }
        #expect(try Self.request(address: Array(repeating: 1, count: 20)).address == EthereumAddressFixture.bytes(1))
        #expect(EthereumRequestError.addressLength(19).description == "the request's address is not 20 bytes")
    }

    @Test(
        "a request with no path and no imported key of its address is refused; with the key imported it is signed by it, and the review names it"
    )
    func importedKeyNamed() throws {
        let vault = try Self.unlocked()
        let master = try vault.masterKey()
        let key = try PrivateKey(secret: SecretBytes(copying: Array(repeating: UInt8(0x11), count: 32)))
        let request = try Self.request(steps: [], address: key.ethereumAddress.bytes)
        #expect(throws: EthereumSignRefusal.noKey(.noKey(address: key.ethereumAddress))) {
            try EthereumSignFlow(request, sourceFingerprint: nil, vault: vault, master: master, options: .init())
        }
        try vault.importKey(ImportedKey(chain: .ethereum, key: key, label: "cold"))
        let reopened = try Self.reopen(vault)
        let flow = try EthereumSignFlow(
            request, sourceFingerprint: nil, vault: reopened, master: master, options: .init())
        #expect(flow.review.from == key.ethereumAddress)
        let labels = flow.review.lines.map(\.label)
        let from = try #require(labels.firstIndex(of: "From"))
        #expect(labels[from + 1] == "Key" && flow.review.lines[from + 1].value == "imported (cold)")
        let signature = try flow.sign()
        #expect(signature.bytes.count == 65)
        // The seed's key at a path gets no "Key" line.
        let seedFlow = try EthereumSignFlow(
            try Self.request(), sourceFingerprint: nil, vault: reopened, master: master, options: .init())
        #expect(!seedFlow.review.lines.contains { $0.label == "Key" })
    }

    @Test("a request for another seed's fingerprint is refused before review; this seed's fingerprint is reviewed")
    func otherSeed() throws {
        let vault = try Self.unlocked()
        let master = try vault.masterKey()
        #expect(throws: EthereumSignRefusal.noKey(.otherSeed(request: "deadbeef", vault: "73c5da0a"))) {
            try EthereumSignFlow(
                try Self.request(), sourceFingerprint: 0xDEAD_BEEF, vault: vault, master: master, options: .init())
        }
        let flow = try EthereumSignFlow(
            try Self.request(), sourceFingerprint: master.fingerprint.value, vault: vault, master: master,
            options: .init())
        #expect(flow.review.refusals.isEmpty)
    }

    @Test("sign() refuses what the review refused and records nothing; a reviewed request is signed and journalled")
    func signRecords() throws {
        let vault = try Self.unlocked()
        let master = try vault.masterKey()
        let low = try EthereumSignFlow(
            try Self.request(), sourceFingerprint: nil, vault: vault, master: master,
            options: .init(maxFee: Wei(UInt256(1))))
        #expect(low.review.refusals.count == 1)
        #expect(throws: EthereumSignRefusal.self) { try low.sign() }
        #expect(try vault.auditLog.entries().isEmpty)
        let flow = try EthereumSignFlow(
            try Self.request(), sourceFingerprint: nil, vault: vault, master: master, options: .init())
        _ = try flow.sign()
        #expect(try vault.auditLog.entries().count == 1)
    }

    @Test("malformed sign-data is invalid input naming the request; the report of a refusal carries the reasons")
    func invalidSignData() throws {
        let vault = try Self.unlocked()
        let master = try vault.masterKey()
        let bad = try EthereumSignFlow.request(
            signData: [0x02, 0xC0], dataType: .typedTransaction, chainID: 1, path: Self.steps, address: nil,
            origin: nil)
        #expect {
            try EthereumSignFlow(bad, sourceFingerprint: nil, vault: vault, master: master, options: .init())
        } throws: { error in
            guard case .invalidSignData = error as? EthereumRequestError else { return false }
            return "\(error)".hasPrefix("invalid eth-sign-request: ")
        }
        let low = try EthereumSignFlow(
            try Self.request(), sourceFingerprint: nil, vault: vault, master: master,
            options: .init(maxFee: Wei(UInt256(1))))
        let json = String(decoding: try JSONEncoder().encode(low.refusedReport), as: UTF8.self)
        #expect(json.contains("\"verdict\":\"refused\"") && json.contains("worst-case fee"))
    }
}
