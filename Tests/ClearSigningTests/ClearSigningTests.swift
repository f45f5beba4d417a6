import ClearSigning
import Codecs
import Ethereum
import Testing

/// The decisions of the ClearSigning module, each with its attack or bad case and a control beside it.
@Suite struct ClearSigningTests {
    static let token = EthereumAddress.fromTrustedHex("0x7730000000000000000000000000000000000001")
    static let other = EthereumAddress.fromTrustedHex("0x7730000000000000000000000000000000000002")
    static let spender = EthereumAddress.fromTrustedHex("0x1111111111111111111111111111111111111111")

    static func descriptor(schema: String = "erc7730-v2.schema.json", extraFormats: String = "") -> String {
        """
        {"$schema": "\(schema)",
         "context": {"contract": {"deployments": [{"chainId": 1, "address": "\(token.checksummed)"}]}},
         "metadata": {"owner": "Test Owner", "token": {"ticker": "TKN", "decimals": 6},
                      "constants": {"max": "0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"}},
         "display": {"formats": {
           "approve(address spender, uint256 value)": {"intent": "Approve", "interpolatedIntent": "Approve {value}",
             "fields": [{"path": "spender", "label": "Spender", "format": "addressName"},
                        {"path": "value", "label": "Amount", "format": "tokenAmount",
                         "params": {"threshold": "$.metadata.constants.max"}}]},
           "setNote(string note)": {"intent": "Note", "fields": [{"path": "note", "label": "Note", "format": "raw"}]},
           "pay(address to, uint256 v)": {"intent": "Pay", "fields": [
             {"path": "to", "label": "To", "format": "addressName", "visible": {"mustMatch": ["\(spender.checksummed)"]}},
             {"path": "v", "label": "Value", "format": "tokenAmount", "params": {"token": "\(other.checksummed)"}}]},
           "exec(address target, bytes data)": {"intent": "Execute", "fields": [
             {"path": "data", "label": "Call", "format": "calldata", "params": {"calleePath": "target"}}]}
           \(extraFormats)
         }}}
        """
    }

    static func load(_ text: String) throws -> Descriptor {
        try Descriptor(bytes: Array(text.utf8)) { (name: String) throws(ClearSigningError) -> [UInt8] in
            throw .invalidDescriptor("no include \(name)")
        }
    }

    static func word(_ bytes: [UInt8]) -> [UInt8] { [UInt8](repeating: 0, count: 32 - bytes.count) + bytes }

    static func approve(_ amount: [UInt8]) -> [UInt8] {
        Array(Keccak256.hash(Array("approve(address,uint256)".utf8)).prefix(4)) + word(spender.bytes) + word(amount)
    }

    static func registry() throws -> ClearSigningRegistry {
        ClearSigningRegistry(descriptors: [try load(descriptor())], tokens: [])
    }

    @Test func aVersion2DescriptorIsReadAndOtherMajorVersionsAreRefused() throws {
        #expect(try Self.load(Self.descriptor()).owner == "Test Owner")
        #expect(try Self.load(Self.descriptor(schema: "../specs/erc7730-v2.1.0.schema.json")).formats.count == 4)
        for schema in ["erc7730-v1.schema.json", "erc7730-v3.schema.json"] {
            #expect(throws: ClearSigningError.self) { try Self.load(Self.descriptor(schema: schema)) }
            do {
                _ = try Self.load(Self.descriptor(schema: schema))
            } catch let error as ClearSigningError {
                guard case .unsupportedVersion = error else {
                    Issue.record("wrong error \(error)")
                    return
                }
            }
        }
        #expect(throws: ClearSigningError.self) { try Self.load("{\"context\": {}}") }
    }

    @Test func aDescriptorAppliesOnlyToItsChainAddressAndSelector() throws {
        let registry = try Self.registry()
        let data = Self.approve([0x0F, 0x42, 0x40])
        let call = CallInput(chainID: 1, to: Self.token, value: .zero, from: nil, data: data)
        let shown = try #require(try registry.render(call))
        #expect(shown.intent == "Approve")
        #expect(shown.interpolatedIntent == "Approve 1 TKN")
        #expect(shown.fields.map(\.value) == [Self.spender.checksummed, "1 TKN"])
        var otherChain = call
        otherChain.chainID = 10
        #expect(try registry.render(otherChain) == nil)
        var otherAddress = call
        otherAddress.to = Self.other
        #expect(try registry.render(otherAddress) == nil)
        var otherSelector = call
        otherSelector.data = [0xde, 0xad, 0xbe, 0xef] + data.dropFirst(4)
        #expect(try registry.render(otherSelector) == nil)
    }

    @Test func theThresholdShowsUnlimitedAndAnUnknownTokenIsRawWithAWarning() throws {
        let registry = try Self.registry()
        let max = CallInput(
            chainID: 1, to: Self.token, value: .zero, from: nil, data: Self.approve([UInt8](repeating: 0xFF, count: 32))
        )
        #expect(try registry.render(max)?.fields.last?.value == "Unlimited TKN")
        let pay =
            (try ABIFunction(signature: "pay(address,uint256)")).selector + Self.word(Self.spender.bytes)
            + Self.word([5])
        let shown = try #require(
            try registry.render(CallInput(chainID: 1, to: Self.token, value: .zero, from: nil, data: pay)))
        #expect(shown.fields.map(\.label) == ["Value"])
        #expect(shown.fields[0].value == "5")
        #expect(shown.fields[0].warning?.hasPrefix("Unknown token") == true)
    }

    @Test func aFailedMustMatchMakesTheDescriptorNotApply() throws {
        let registry = try Self.registry()
        let bad =
            (try ABIFunction(signature: "pay(address,uint256)")).selector + Self.word(Self.other.bytes) + Self.word([5])
        #expect(throws: ClearSigningError.self) {
            try registry.render(CallInput(chainID: 1, to: Self.token, value: .zero, from: nil, data: bad))
        }
    }

    @Test func truncatedCallDataIsRefusedAndAWholeOneDecodes() throws {
        let registry = try Self.registry()
        let data = Self.approve([1])
        #expect(throws: ClearSigningError.self) {
            try registry.render(
                CallInput(chainID: 1, to: Self.token, value: .zero, from: nil, data: Array(data.prefix(40))))
        }
        #expect(try registry.render(CallInput(chainID: 1, to: Self.token, value: .zero, from: nil, data: data)) != nil)
    }

    @Test func hiddenCharactersInACallsStringAreEscapedAndReported() throws {
        let registry = try Self.registry()
        func note(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            let padded = bytes + [UInt8](repeating: 0, count: (32 - bytes.count % 32) % 32)
            return (try! ABIFunction(signature: "setNote(string)")).selector + Self.word([0x20])
                + Self.word([UInt8(bytes.count)]) + padded
        }
        let attack = try #require(
            try registry.render(
                CallInput(chainID: 1, to: Self.token, value: .zero, from: nil, data: note("pay\u{202E}lapyap"))))
        #expect(attack.hadHiddenCharacters)
        #expect(attack.fields[0].value == "pay\\u202elapyap")
        let plain = try #require(
            try registry.render(CallInput(chainID: 1, to: Self.token, value: .zero, from: nil, data: note("paypal"))))
        #expect(!plain.hadHiddenCharacters)
        #expect(plain.fields[0].value == "paypal")
    }

    @Test func aNestedCallIsShownThroughItsDescriptorOrMarkedBlind() throws {
        let registry = try Self.registry()
        let inner = Self.approve([0x0F, 0x42, 0x40])
        func exec(_ target: EthereumAddress) -> [UInt8] {
            let padded = inner + [UInt8](repeating: 0, count: (32 - inner.count % 32) % 32)
            return (try! ABIFunction(signature: "exec(address,bytes)")).selector + Self.word(target.bytes)
                + Self.word([0x40]) + Self.word([UInt8(inner.count)]) + padded
        }
        let known = try #require(
            try registry.render(CallInput(chainID: 1, to: Self.token, value: .zero, from: nil, data: exec(Self.token))))
        #expect(known.fields[0].nested?.intent == "Approve")
        #expect(!known.hasBlindPart)
        let unknown = try #require(
            try registry.render(CallInput(chainID: 1, to: Self.token, value: .zero, from: nil, data: exec(Self.other))))
        #expect(unknown.fields[0].nested == nil)
        #expect(unknown.hasBlindPart)
    }

    @Test func includesMergeAndNestButALoopIsRefused() throws {
        let base = """
            {"$schema": "erc7730-v2.schema.json", "metadata": {"owner": "Base"},
             "display": {"formats": {"setNote(string note)": {"intent": "Base note",
               "fields": [{"path": "note", "label": "Base label"}]}}}}
            """
        let including = """
            {"$schema": "erc7730-v2.schema.json", "includes": "base.json",
             "context": {"contract": {"deployments": [{"chainId": 1, "address": "\(Self.token.checksummed)"}]}},
             "display": {"formats": {"setNote(string note)": {"fields": [{"path": "note", "label": "Note"}]}}}}
            """
        let merged = try Descriptor(bytes: Array(including.utf8)) { (_: String) throws(ClearSigningError) -> [UInt8] in
            Array(base.utf8)
        }
        #expect(merged.owner == "Base")
        #expect(merged.formats.first?.json["intent"]?.string == "Base note")
        #expect(merged.formats.first?.json["fields"]?.array?.count == 1)
        #expect(merged.formats.first?.json["fields"]?.array?.first?["label"]?.string == "Note")
        // An include may include again (each path relative to the file naming it); a loop is refused.
        let chained = base.replacingOccurrences(
            of: "\"metadata\"", with: "\"includes\": \"./deeper/x.json\", \"metadata\"")
        var asked: [String] = []
        let nested = try Descriptor(bytes: Array(including.utf8)) {
            (name: String) throws(ClearSigningError) -> [UInt8] in
            asked.append(name)
            return Array((name == "base.json" ? chained : base).utf8)
        }
        #expect(asked == ["base.json", "deeper/x.json"])
        #expect(nested.owner == "Base")
        #expect(throws: ClearSigningError.self) {
            try Descriptor(bytes: Array(including.utf8)) { (_: String) throws(ClearSigningError) -> [UInt8] in
                Array(chained.utf8)
            }
        }
    }

    @Test func anEIP712DescriptorNeedsItsDomainAndContract() throws {
        let text = """
            {"$schema": "erc7730-v2.schema.json",
             "context": {"eip712": {"domain": {"name": "Permit2"},
               "deployments": [{"chainId": 1, "address": "\(Self.token.checksummed)"}]}},
             "metadata": {"owner": "Owner"},
             "display": {"formats": {"Hello(address who,uint256 amount)": {"intent": "Say hello",
               "fields": [{"path": "who", "label": "Who"}, {"path": "amount", "label": "Amount"}]}}}}
            """
        let registry = ClearSigningRegistry(descriptors: [try Self.load(text)], tokens: [])
        func message(name: String, contract: EthereumAddress) throws -> TypedData {
            try TypedData(
                json: Array(
                    """
                    {"types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"},
                      {"name": "verifyingContract", "type": "address"}],
                      "Hello": [{"name": "who", "type": "address"}, {"name": "amount", "type": "uint256"}]},
                     "primaryType": "Hello",
                     "domain": {"name": "\(name)", "chainId": 1, "verifyingContract": "\(contract.checksummed)"},
                     "message": {"who": "\(Self.spender.checksummed)", "amount": "42"}}
                    """.utf8))
        }
        let shown = try #require(try registry.render(message(name: "Permit2", contract: Self.token), from: nil))
        #expect(shown.intent == "Say hello")
        #expect(shown.fields.map(\.value) == [Self.spender.checksummed, "42"])
        #expect(try registry.render(message(name: "Permit3", contract: Self.token), from: nil) == nil)
        #expect(try registry.render(message(name: "Permit2", contract: Self.other), from: nil) == nil)
    }
}
