import Bitcoin
import BitcoinCrypto
import Ethereum
import SeedBackup
import Testing

@testable import EthereumSigner
@testable import Signer

/// Issue 26 on the Ethereum review: hidden characters escaped and announced, blind data refused unless allowed,
/// approvals judged by effect, the chain taken from the signed domain; each attack beside a control.
@Suite("Ethereum review safety")
struct EthereumReviewSafetyTests {
    static func session(allowBlind: Bool = false, tokens: [EthereumToken] = []) throws -> EthereumSigningSession {
        let master = try ExtendedPrivateKey(seed: Mnemonic(phrase: EthereumSigningSessionTests.mnemonic).seed())
        return EthereumSigningSession(master: master, allowBlind: allowBlind, tokens: tokens)
    }

    static func request(_ data: [UInt8], _ type: EthereumSigningSession.Request.DataType, origin: String? = nil)
        throws -> EthereumSigningSession.Request
    {
        .init(
            signData: data, dataType: type, chainID: 1, path: try EthereumSigningSessionTests.path0, address: nil,
            origin: origin)
    }

    static func tx(to: EthereumAddress, data: [UInt8]) throws -> EthereumSigningSession.Request {
        try request(EthereumSigningSessionTests.tx(to: to, data: data).unsignedSerialized(), .typedTransaction)
    }

    static func typed(name: String, domainType: String? = nil, domain: String? = nil) -> [UInt8] {
        let declared = domainType ?? #"[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}]"#
        let value = domain ?? #"{"name":"\#(name)","chainId":1}"#
        return Array(
            """
            {"types":{"EIP712Domain":\(declared),"Note":[{"name":"text","type":"string"}]},
            "primaryType":"Note","domain":\(value),"message":{"text":"hi"}}
            """.utf8)
    }

    @Test("Escape sequences and direction overrides are shown escaped, announced, and kept as data for --json")
    func hiddenCharacters() throws {
        let attack = try Self.session().review(
            try Self.request(Self.typed(name: #"Shop\u001b[1A\u001b[2K\u202e"#), .typedData, origin: "app\u{202E}"))
        let line = try #require(attack.lines.first { $0.label == "Domain name" })
        #expect(line.value == #"Shop\u001b[1A\u001b[2K\u202e"#)
        #expect(line.data == "Shop\u{1B}[1A\u{1B}[2K\u{202E}")
        #expect(line.hiddenCharacters)
        #expect(attack.lines.first { $0.label == "Origin" }?.value == #"app\u202e"#)
        #expect(attack.warnings.contains(DisplayText.hiddenCharactersWarning))
        #expect(!attack.text.contains("\u{1B}") && !attack.text.contains("\u{202E}"))
        // Control: plain text is shown as it is, with no warning.
        let plain = try Self.session().review(try Self.request(Self.typed(name: "Shop"), .typedData, origin: "app"))
        #expect(!plain.hiddenCharacters && !plain.warnings.contains(DisplayText.hiddenCharactersWarning))
        // A personal message keeps its lines but escapes the rest.
        let message = try Self.session().review(
            try Self.request(Array("line 1\nline 2\u{202E}".utf8), .personalMessage))
        #expect(message.lines.first { $0.label == "Message" }?.value == "line 1\nline 2\\u202e")
    }

    @Test("A 32-byte or unreadable message and undecodable calldata are refused unless --allow-blind")
    func blind() throws {
        let hash = [UInt8](repeating: 0x5A, count: 32)
        let unreadable: [UInt8] = [0xFF, 0xFE, 0x41]
        let escape = Array("\u{1B}]0;title\u{07}".utf8)
        let unknown = [0xDE, 0xAD, 0xBE, 0xEF] + UInt256(1).bigEndianBytes
        let target = EthereumSigningSessionTests.token
        for data in [hash, unreadable, escape] {
            let refused = try Self.session().review(try Self.request(data, .personalMessage))
            #expect(refused.refusals.count == 1)
            #expect(refused.lines.contains { $0.label == "Message (hex)" })
            let allowed = try Self.session(allowBlind: true).review(try Self.request(data, .personalMessage))
            #expect(allowed.refusals.isEmpty && allowed.warnings.contains { $0.contains("blind signing") })
        }
        #expect(try Self.session().review(try Self.tx(to: target, data: unknown)).refusals.count == 1)
        #expect(try Self.session(allowBlind: true).review(try Self.tx(to: target, data: unknown)).refusals.isEmpty)
        // Controls: a readable message of 31 or 33 bytes, and a plain ETH payment, are not blind.
        for text in [String(repeating: "a", count: 31), String(repeating: "a", count: 33)] {
            #expect(try Self.session().review(try Self.request(Array(text.utf8), .personalMessage)).refusals.isEmpty)
        }
        #expect(try Self.session().review(try Self.tx(to: target, data: [])).refusals.isEmpty)
    }

    @Test("An allowance of 2^128 or more is UNLIMITED (in effect); 2^128 - 1 is shown as a number")
    func unlimitedThreshold() throws {
        let spender = EthereumAddressFixture.bytes(0xEE)
        var big = [UInt8](repeating: 0, count: 32)
        big[15] = 1
        let threshold = try UInt256(bigEndian: big)
        let below = try UInt256(bigEndian: [UInt8](repeating: 0, count: 16) + [UInt8](repeating: 0xFF, count: 16))
        let target = EthereumSigningSessionTests.token
        for selector: [UInt8] in [[0x09, 0x5E, 0xA7, 0xB3], [0x39, 0x50, 0x93, 0x51]] {
            let at = try Self.session().review(
                try Self.tx(
                    to: target,
                    data: selector + [UInt8](repeating: 0, count: 12) + spender.bytes + threshold.bigEndianBytes))
            #expect(at.lines.contains { $0.value.contains("UNLIMITED (in effect") })
            #expect(
                at.warnings.contains { $0.contains("unlimited token approval") && $0.contains(spender.checksummed) })
            let under = try Self.session().review(
                try Self.tx(
                    to: target, data: selector + [UInt8](repeating: 0, count: 12) + spender.bytes + below.bigEndianBytes
                ))
            #expect(!under.warnings.contains { $0.contains("unlimited") })
            #expect(under.lines.contains { $0.label == "Spender" && $0.value == spender.checksummed })
        }
    }

    @Test("setApprovalForAll(x, true) always warns; (x, false) does not")
    func approvalForAll() throws {
        let op = EthereumAddressFixture.bytes(0x77)
        let target = EthereumSigningSessionTests.token
        func call(_ flag: UInt64) -> [UInt8] {
            [0xA2, 0x2C, 0xB4, 0x65] + [UInt8](repeating: 0, count: 12) + op.bytes + UInt256(flag).bigEndianBytes
        }
        let on = try Self.session().review(try Self.tx(to: target, data: call(1)))
        #expect(on.warnings.contains { $0.contains(op.checksummed) && $0.contains("every token") })
        let off = try Self.session().review(try Self.tx(to: target, data: call(0)))
        #expect(!off.warnings.contains { $0.contains("every token") })
    }

    @Test("Known tokens show token units; a user's token too; an unknown one base units with a warning")
    func tokenUnits() throws {
        let usdc = try EthereumAddress(string: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")
        let transfer =
            [0xA9, 0x05, 0x9C, 0xBB] + [UInt8](repeating: 0, count: 12)
            + EthereumAddressFixture.bytes(0xCD).bytes + UInt256(12_500_000).bigEndianBytes
        let known = try Self.session().review(try Self.tx(to: usdc, data: transfer))
        #expect(known.lines.contains { $0.value.hasPrefix("transfer 12.5 USDC to") })
        #expect(!known.warnings.contains { $0.contains("token list") })
        let mine = EthereumToken(chainID: 1, address: EthereumSigningSessionTests.token, symbol: "ATT", decimals: 6)
        let added = try Self.session(tokens: [mine]).review(
            try Self.tx(to: EthereumSigningSessionTests.token, data: transfer))
        #expect(added.lines.contains { $0.value.hasPrefix("transfer 12.5 ATT to") })
        let unknown = try Self.session().review(try Self.tx(to: EthereumSigningSessionTests.token, data: transfer))
        #expect(unknown.lines.contains { $0.value.hasPrefix("transfer 12500000 base units to") })
        #expect(unknown.warnings.contains { $0.contains("not in the signer's token list") })
        // Every built-in address is a valid EIP-55 checksum (a typo would drop the entry).
        #expect(EthereumToken.builtIn.count == 20)
    }

    @Test("The chain shown is the signed domain's; a domain without chainId is valid on every chain, with a warning")
    func chainFromDomain() throws {
        let chainless = try Self.session().review(
            try Self.request(
                Self.typed(name: "x", domainType: #"[{"name":"name","type":"string"}]"#, domain: #"{"name":"x"}"#),
                .typedData))
        #expect(chainless.lines.first { $0.label == "Chain" }?.value.contains("every chain") == true)
        #expect(chainless.warnings.contains { $0.contains("valid on every chain") })
        #expect(chainless.chainID == nil)
        let control = try Self.session().review(try Self.request(Self.typed(name: "x"), .typedData))
        #expect(control.lines.first { $0.label == "Chain" }?.value == "Ethereum (1)")
        #expect(!control.warnings.contains { $0.contains("every chain") })
    }

    @Test("A request for another seed or with no key is refused before review; this seed's is not")
    func keyRefusal() throws {
        let session = try Self.session()
        let request = try Self.request(Array("hi".utf8), .personalMessage)
        #expect(
            session.keyRefusal(request, sourceFingerprint: 0xDEAD_BEEF)
                == .otherSeed(request: "deadbeef", vault: "73c5da0a"))
        #expect(session.keyRefusal(request, sourceFingerprint: 0x73C5_DA0A) == nil)
        #expect(session.keyRefusal(request, sourceFingerprint: nil) == nil)
        var pathless = request
        pathless.path = try DerivationPath(string: "m")
        #expect(session.keyRefusal(pathless, sourceFingerprint: nil) == .noKey(address: nil))
    }
}
