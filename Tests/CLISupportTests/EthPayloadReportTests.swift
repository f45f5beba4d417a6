import AirgapTransport
import Ethereum
import Testing

@testable import CLISupport

/// `inspect` of Ethereum payloads on both sides: what a request asks and what a signature answers, decoded without a
/// vault; untrusted text escaped and flagged.
@Suite("EthPayloadReport: eth-sign-request and eth-signature for inspect")
struct EthPayloadReportTests {
    static let path = URKeypath(components: [
        .index(44, hardened: true), .index(60, hardened: true), .index(0, hardened: true),
        .index(0, hardened: false), .index(0, hardened: false),
    ])

    @Test("an EIP-1559 unlimited approval: fields, the ERC-20 call, its warning, the chain named")
    func approval() throws {
        let spender = try EthereumAddress(string: "0x" + String(repeating: "ab", count: 20))
        let token = try EthereumAddress(string: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")
        let transaction = EthereumTransaction(
            kind: .dynamicFee(maxPriorityFeePerGas: UInt256(1_000_000_000), maxFeePerGas: UInt256(30_000_000_000)),
            chainID: 1, nonce: 7, gasLimit: 60_000, to: token, value: Wei(.zero),
            data: ERC20Call.approve(spender: spender, amount: .max).calldata)
        let request = UREthSignRequest(
            requestID: [UInt8](repeating: 0x11, count: 16), signData: transaction.unsignedSerialized(),
            dataType: .typedTransaction, chainID: 1, derivationPath: Self.path,
            address: [UInt8](repeating: 0x22, count: 20), origin: "dapp\u{202E}evil")
        let report = try EthPayloadReport(request: request)
        let json = report.json
        #expect(json.type == "eth-sign-request" && json.dataType == "transaction")
        #expect(json.requestId == String(repeating: "11", count: 16))
        #expect(json.chainId == 1 && json.chainName == "Ethereum mainnet")
        #expect(json.path == "m/44'/60'/0'/0/0")
        #expect(json.transaction?.nonce == 7 && json.transaction?.gasLimit == 60_000)
        #expect(json.transaction?.maxFeePerGas == "30000000000" && json.transaction?.kind == "eip1559")
        #expect(json.transaction?.worstCaseFeeEth == "0.001800000000000000")
        #expect(json.transaction?.call?.function == "approve" && json.transaction?.call?.unlimited == true)
        #expect(json.warnings.contains { $0.contains("unlimited approval") })
        // The origin held a right-to-left override: escaped, flagged.
        #expect(json.origin == "dapp\\u202eevil" && json.hiddenCharacters == true)
        #expect(report.text.contains("approve 0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB to spend an unlimited amount"))
        #expect(report.text.contains("max fee: 30 gwei"))
    }

    @Test("a personal message and typed data; a signature's r, s, v; sign data that does not decode is exit 2")
    func messagesAndSignatures() throws {
        let message = UREthSignRequest(
            requestID: nil, signData: Array("Sign in to example.org".utf8), dataType: .personalMessage, chainID: nil,
            derivationPath: Self.path)
        let shown = try EthPayloadReport(request: message)
        #expect(shown.json.message?.text == "Sign in to example.org" && shown.json.hiddenCharacters == nil)
        let typed = """
            {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}],\
            "Permit":[{"name":"owner","type":"address"},{"name":"value","type":"uint256"}]},"primaryType":"Permit",\
            "domain":{"name":"USD Coin","chainId":1},"message":{"owner":"0x2222222222222222222222222222222222222222",\
            "value":"1000"}}
            """
        let typedReport = try EthPayloadReport(
            request: UREthSignRequest(
                requestID: nil, signData: Array(typed.utf8), dataType: .typedData, chainID: 1,
                derivationPath: Self.path))
        #expect(typedReport.json.typedData?.primaryType == "Permit" && typedReport.json.typedData?.permit == true)
        #expect(typedReport.json.typedData?.domain.map(\.name) == ["name", "chainId"])
        #expect(typedReport.json.typedData?.fields.first { $0.name == "value" }?.value == "1000")
        let signature = EthPayloadReport(
            signature: UREthSignature(
                requestID: [UInt8](repeating: 0x33, count: 16),
                signature: [UInt8](repeating: 0x44, count: 64) + [0x01], origin: nil))
        #expect(signature.json.type == "eth-signature" && signature.json.v == "1")
        #expect(signature.json.r == String(repeating: "44", count: 32))
        let broken = UREthSignRequest(
            requestID: nil, signData: [0x02, 0xFF], dataType: .typedTransaction, chainID: 1,
            derivationPath: Self.path)
        #expect(throws: CLIError.self) { try EthPayloadReport(request: broken) }
    }
}
