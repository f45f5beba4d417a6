import BitcoinCrypto
import Codecs
import Testing

@testable import Ethereum

/// What is shown must be what is hashed (docs/threat-model.md, "EIP-712 strictness"): each way typed data can show
/// one thing and sign another is refused, beside a control that parses.
@Suite("EIP-712 strictness")
struct TypedDataStrictnessTests {
    static let domainType =
        #"[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}]"#

    static func json(
        domainType: String = domainType, domain: String = #"{"name":"Shop","chainId":1}"#,
        message: String = #"{"to":{"wallet":"0x1111111111111111111111111111111111111111"},"amount":5}"#,
        extraTypes: String = "", primary: String = "Order"
    ) -> [UInt8] {
        Array(
            """
            {"types":{"EIP712Domain":\(domainType),
            "Order":[{"name":"to","type":"Party"},{"name":"amount","type":"uint256"}],
            "Party":[{"name":"wallet","type":"address"}]\(extraTypes)},
            "primaryType":"\(primary)","domain":\(domain),"message":\(message)}
            """.utf8)
    }

    @Test("Control: the well-formed request parses, hashes, and names its chain")
    func control() throws {
        let data = try TypedData(json: Self.json())
        _ = try data.signingHash()
        #expect(try data.domainChainID() == UInt256(1))
    }

    @Test("A member named twice, anywhere, is refused")
    func duplicates() {
        #expect(throws: TypedDataError.duplicateMember("amount")) {
            try TypedData(
                json: Self.json(
                    message: #"{"to":{"wallet":"0x1111111111111111111111111111111111111111"},"amount":5,"amount":9}"#))
        }
        #expect(throws: TypedDataError.duplicateMember("chainId")) {
            try TypedData(json: Self.json(domain: #"{"name":"Shop","chainId":1,"chainId":5}"#))
        }
    }

    @Test("Domain members: present but not declared, or declared but absent, or not EIP-712's, are refused")
    func domain() throws {
        // chainId shown but not declared: would be reviewed as chain 1 and signed for every chain.
        #expect(throws: TypedDataError.undeclaredMember(path: "domain", name: "chainId")) {
            try TypedData(json: Self.json(domainType: #"[{"name":"name","type":"string"}]"#))
        }
        #expect(throws: TypedDataError.missingDomainMember("chainId")) {
            try TypedData(json: Self.json(domain: #"{"name":"Shop"}"#))
        }
        #expect(throws: TypedDataError.nonStandardDomainField("shop")) {
            try TypedData(
                json: Self.json(domainType: #"[{"name":"shop","type":"string"}]"#, domain: #"{"shop":"x"}"#))
        }
        // Control: a domain that declares no chainId and has none is valid (on every chain).
        let chainless = try TypedData(
            json: Self.json(domainType: #"[{"name":"name","type":"string"}]"#, domain: #"{"name":"Shop"}"#))
        #expect(try chainless.domainChainID() == nil)
    }

    @Test("Message members a type does not declare are refused at any depth")
    func undeclared() throws {
        let top = try TypedData(
            json: Self.json(
                message: #"{"to":{"wallet":"0x1111111111111111111111111111111111111111"},"amount":5,"memo":"x"}"#))
        #expect(throws: TypedDataError.undeclaredMember(path: "Order", name: "memo")) { try top.signingHash() }
        let nested = try TypedData(
            json: Self.json(
                message: #"{"to":{"wallet":"0x1111111111111111111111111111111111111111","name":"Bob"},"amount":5}"#))
        #expect(throws: TypedDataError.undeclaredMember(path: "Order.to", name: "name")) { try nested.signingHash() }
    }

    @Test("primaryType must be the one struct no other uses; the message must be there")
    func primaryType() {
        #expect(throws: TypedDataError.self) {
            try TypedData(
                json: Self.json(message: #"{"wallet":"0x1111111111111111111111111111111111111111"}"#, primary: "Party"))
        }
        #expect(throws: TypedDataError.self) {
            try TypedData(json: Self.json(extraTypes: #","Unused":[{"name":"a","type":"uint8"}]"#))
        }
        #expect(throws: TypedDataError.missingMember("message")) {
            try TypedData(
                json: Array(
                    #"{"types":{"EIP712Domain":[],"A":[{"name":"x","type":"uint8"}]},"primaryType":"A","domain":{}}"#
                        .utf8))
        }
    }

    @Test("Messages name no Swift types and escape hidden characters")
    func messages() {
        let text = TypedDataError.undeclaredMember(path: "Order", name: "\u{1B}[2Jx").description
        #expect(text.contains(#"\u001b[2Jx"#))
        #expect(!text.contains("\u{1B}"))
        #expect(!text.contains("undeclaredMember"))
    }
}

/// Token calls decoded from calldata.
///
/// The selectors are those eth-utils computes
/// (`function_signature_to_4byte_selector`), written here as hex; Tests/e2e/test_eth_review.py builds the same calls
/// with eth-abi and checks the signer's review of each.
@Suite("Contract calls")
struct ContractCallTests {
    static func word(_ byte: UInt8) -> [UInt8] {
        [UInt8](repeating: 0, count: 12) + [UInt8](repeating: byte, count: 20)
    }
    static func uint(_ value: UInt64) -> [UInt8] { UInt256(value).bigEndianBytes }
    static func hex(_ text: String) -> [UInt8] { Hex.decode(text) ?? [] }

    @Test("Selectors equal eth-utils'")
    func selectors() {
        let expected: [String: String] = [
            "transfer(address,uint256)": "a9059cbb", "approve(address,uint256)": "095ea7b3",
            "increaseAllowance(address,uint256)": "39509351", "setApprovalForAll(address,bool)": "a22cb465",
            "transferFrom(address,address,uint256)": "23b872dd",
            "safeTransferFrom(address,address,uint256,uint256,bytes)": "f242432a",
            "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)": "d505accf",
            "approve(address,address,uint160,uint48)": "87517c45",
            "permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)": "2b67b570",
            "permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)": "2a2d80d1",
            "permitTransferFrom(((address,uint256),uint256,uint256),(address,uint256),address,bytes)": "30f28b7a",
        ]
        for (signature, selector) in expected {
            #expect(ContractCall.selectors[signature] == Self.hex(selector), "\(signature)")
            #expect(Array(Keccak256.hash(Array(signature.utf8)).prefix(4)) == Self.hex(selector))
        }
    }

    @Test("Approvals decode to spender and amount; a bool other than 0/1 or a dirty address is refused")
    func approvals() throws {
        let spender = try EthereumAddress(bytes: [UInt8](repeating: 0xEE, count: 20))
        let increase = Self.hex("39509351") + Self.word(0xEE) + Self.uint(7)
        #expect(try ContractCall(calldata: increase) == .increaseAllowance(spender: spender, added: UInt256(7)))
        let all = Self.hex("a22cb465") + Self.word(0xEE) + Self.uint(1)
        #expect(try ContractCall(calldata: all) == .setApprovalForAll(operator: spender, approved: true))
        #expect(throws: ABIError.self) {
            try ContractCall(calldata: Self.hex("a22cb465") + Self.word(0xEE) + Self.uint(2))
        }
        var dirty = Self.word(0xEE)
        dirty[0] = 1
        #expect(throws: ABIError.self) { try ContractCall(calldata: Self.hex("095ea7b3") + dirty + Self.uint(1)) }
        #expect(try ContractCall(calldata: Self.hex("deadbeef") + Self.uint(1)) == nil)
    }
}
