import Bitcoin
import BitcoinCrypto
import Ethereum
import SeedBackup
import Testing

@testable import EthereumSigner
@testable import Signer

/// The Ethereum review and its refusals (docs/architecture.md section 10): each check with its attack case and a control that
/// shows it is not simply saying no.
@Suite("Ethereum signing session")
struct EthereumSigningSessionTests {
    static let mnemonic =
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"

    static func session(maxFee: Wei = EthereumSigningSession.defaultMaxFee) throws -> EthereumSigningSession {
        let master = try ExtendedPrivateKey(seed: Mnemonic(phrase: mnemonic).seed())
        return EthereumSigningSession(master: master, maxFee: maxFee)
    }

    static var path0: DerivationPath {
        get throws { try DerivationPath(string: "m/44'/60'/0'/0/0") }
    }

    static let token = EthereumAddressFixture.bytes(0xAB)
    static let recipient = EthereumAddressFixture.bytes(0xCD)

    static func tx(
        chainID: UInt64? = 1, maxFee: UInt64 = 30_000_000_000, gas: UInt64 = 60_000, to: EthereumAddress? = token,
        data: [UInt8] = []
    ) -> EthereumTransaction {
        EthereumTransaction(
            kind: .dynamicFee(maxPriorityFeePerGas: UInt256(1_000_000_000), maxFeePerGas: UInt256(maxFee)),
            chainID: chainID, nonce: 7, gasLimit: gas, to: to, value: Wei(.zero), data: data)
    }

    static func request(
        _ tx: EthereumTransaction, chainID: UInt64? = 1, address: EthereumAddress? = nil
    ) throws -> EthereumSigningSession.Request {
        let path = try Self.path0
        return
            EthereumSigningSession.Request(
                signData: tx.unsignedSerialized(),
                dataType: tx.typeByte == nil ? .legacyTransaction : .typedTransaction,
                chainID: chainID, path: path, address: address)
    }

    @Test("An ERC-20 transfer shows recipient and amount in base units, fees in gwei, the worst case in ETH")
    func erc20Transfer() throws {
        let data = ERC20Call.transfer(to: Self.recipient, amount: UInt256(12_500_000)).calldata
        let review = try Self.session().review(try Self.request(Self.tx(data: data)))
        let lines = Dictionary(review.lines.map { ($0.label, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(lines["ERC-20"] == "transfer 12500000 base units to \(Self.recipient.checksummed)")
        #expect(lines["Max fee"] == "30 gwei")
        #expect(lines["Priority fee"] == "1 gwei")
        #expect(lines["Worst-case fee"] == "0.001800000000000000 ETH")
        #expect(lines["Value"] == "0.000000000000000000 ETH")
        #expect(lines["Chain"] == "Ethereum (1)")
        #expect(review.refusals.isEmpty)
        // The token is not in the signer's list: base units, and a warning saying so.
        #expect(review.warnings.count == 1 && review.warnings[0].contains("not in the signer's token list"))
        let signature = try Self.session().sign(review, path: try Self.path0)
        #expect(signature.bytes.count == 65)
        #expect(try signature.signature.recoverPublicKey(digest: review.signingHash).ethereumAddress == review.from)
    }

    @Test("An unlimited approval is flagged; a finite one is not")
    func unlimitedApproval() throws {
        let unlimited = ERC20Call.approve(spender: Self.recipient, amount: .max).calldata
        let finite = ERC20Call.approve(spender: Self.recipient, amount: UInt256(5)).calldata
        #expect(
            try Self.session().review(try Self.request(Self.tx(data: unlimited))).warnings.contains {
                $0.contains("unlimited")
            })
        #expect(
            !(try Self.session().review(try Self.request(Self.tx(data: finite))).warnings.contains {
                $0.contains("unlimited")
            }))
    }

    @Test("Contract creation is flagged")
    func contractCreation() throws {
        let review = try Self.session().review(try Self.request(Self.tx(to: nil, data: [0x60, 0x00])))
        #expect(review.warnings.contains { $0.contains("creates a contract") })
    }

    @Test("A fee above --max-fee-eth is refused; the same fee at the maximum is signed")
    func feeCap() throws {
        // 60,000 gas × 30 gwei = 0.0018 ETH.
        let tx = Self.tx()
        let tight = Wei(UInt256(1_799_999_999_999_999))
        let exact = Wei(UInt256(1_800_000_000_000_000))
        let refused = try Self.session(maxFee: tight).review(try Self.request(tx))
        #expect(refused.refusals == [.feeTooHigh(fee: exact, maximum: tight)])
        #expect(throws: EthereumSigningError.refused([.feeTooHigh(fee: exact, maximum: tight)])) {
            try Self.session(maxFee: tight).sign(refused, path: try Self.path0)
        }
        #expect(try Self.session(maxFee: exact).review(try Self.request(tx)).refusals.isEmpty)
    }

    @Test("A legacy transaction without chain id is refused; with EIP-155 it is signed with v = 2·id + 35 + parity")
    func noChainID() throws {
        var legacy = Self.tx(chainID: nil)
        legacy.kind = .legacy(gasPrice: UInt256(1_000_000_000))
        #expect(try Self.session().review(try Self.request(legacy, chainID: nil)).refusals == [.noChainID])
        legacy.chainID = 137
        let review = try Self.session().review(try Self.request(legacy, chainID: 137))
        #expect(review.refusals.isEmpty)
        let v = try Self.session().sign(review, path: try Self.path0).v
        #expect(v == UInt256(309) || v == UInt256(310))
    }

    @Test("A request whose address is not the key at its path is refused; the right address is accepted")
    func addressMismatch() throws {
        let session = try Self.session()
        let own = try session.address(index: 0).address
        #expect(own.checksummed == "0x9858EfFD232B4033E47d90003D41EC34EcaEda94")
        let wrong = try session.address(index: 1).address
        #expect(
            try session.review(try Self.request(Self.tx(), address: wrong)).refusals == [
                .addressMismatch(requested: wrong, derived: own)
            ])
        #expect(try session.review(try Self.request(Self.tx(), address: own)).refusals.isEmpty)
    }

    @Test("A chain id the request and the transaction disagree on is refused; agreeing ones are accepted")
    func chainContradiction() throws {
        #expect(
            try Self.session().review(try Self.request(Self.tx(chainID: 1), chainID: 137)).refusals == [
                .chainIDContradiction(request: 137, data: 1)
            ])
        #expect(try Self.session().review(try Self.request(Self.tx(chainID: 137), chainID: 137)).refusals.isEmpty)
    }

    @Test("A permit is flagged, a plain EIP-712 message is not; a personal message shows as text")
    func messages() throws {
        func typed(_ primary: String, chain: Int) -> [UInt8] {
            Array(
                """
                {"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"}],
                "\(primary)":[{"name":"owner","type":"address"},{"name":"value","type":"uint256"}]},
                "primaryType":"\(primary)","domain":{"chainId":\(chain)},
                "message":{"owner":"0x\(String(repeating: "ab", count: 20))","value":"1"}}
                """.utf8)
        }
        let path = try Self.path0
        func request(_ data: [UInt8], type: EthereumSigningSession.Request.DataType) -> EthereumSigningSession.Request {
            .init(signData: data, dataType: type, chainID: 1, path: path, address: nil)
        }
        let session = try Self.session()
        #expect(
            try session.review(request(typed("Permit", chain: 1), type: .typedData)).warnings.contains {
                $0.contains("permit")
            })
        #expect(try session.review(request(typed("Order", chain: 1), type: .typedData)).warnings.isEmpty)
        #expect(
            try session.review(request(typed("Order", chain: 5), type: .typedData)).refusals == [
                .chainIDContradiction(request: 1, data: 5)
            ])
        let personal = try session.review(request(Array("hello".utf8), type: .personalMessage))
        #expect(personal.lines.contains { $0.label == "Message" && $0.value == "hello" })
        let v = try session.sign(personal, path: try Self.path0).v
        #expect(v == UInt256(27) || v == UInt256(28))
    }

    @Test("Malformed sign-data is invalid input, not a refusal")
    func malformed() throws {
        let bad = EthereumSigningSession.Request(
            signData: [0x02, 0xC1], dataType: .typedTransaction, chainID: 1, path: try Self.path0, address: nil)
        #expect(throws: EthereumSigningError.self) { try Self.session().review(bad) }
    }
}

/// Test addresses of twenty equal bytes.
enum EthereumAddressFixture {
    static func bytes(_ byte: UInt8) -> EthereumAddress {
        (try? EthereumAddress(bytes: [UInt8](repeating: byte, count: 20)))
            ?? EthereumAddress(publicKey: PrivateKey.random().publicKey)
    }
}
