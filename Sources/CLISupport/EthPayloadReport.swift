import AirgapTransport
import Bitcoin
import Codecs
import Ethereum
import Foundation

/// What an EIP-4527 `eth-sign-request` or `eth-signature` says, for `inspect` on both sides of the air gap (no
/// vault, no node): the request's chain id, path and address, and its decoded content (a transaction's recipient,
/// value, nonce and fees, an ERC-20 call; a personal message; EIP-712 typed data's domain and fields); a signature's
/// request id and r, s, v.
///
/// Untrusted text (messages, typed data strings, origins) goes through `DisplayText`; `hidden_characters` says
/// when it held any.
public struct EthPayloadReport {
    /// The `--json` form.
    public let json: JSON
    /// The text form, one labelled line each, ending in a newline.
    public let text: String

    /// `inspect --json` of an Ethereum payload.
    public struct JSON: Encodable, Sendable {
        /// `eth-sign-request` or `eth-signature`.
        public var type: String
        /// The request id (32 hex digits, as the watcher's history shows it), when present.
        public var requestId: String?
        // A request:
        /// `transaction` (EIP-2718 typed), `legacy-transaction`, `typed-data` or `personal-message`.
        public var dataType: String?
        public var chainId: UInt64?
        public var chainName: String?
        public var path: String?
        public var address: String?
        public var origin: String?
        public var transaction: Transaction?
        public var message: Message?
        public var typedData: TypedDataSummary?
        // A signature:
        public var signature: String?
        public var r: String?
        public var s: String?
        public var v: String?
        public var hiddenCharacters: Bool?
        public var warnings: [String]

        init(type: String) {
            self.type = type
            warnings = []
        }
    }

    /// A transaction's fields; amounts as decimal strings of wei (`value`, fees) with ETH and gwei forms beside.
    public struct Transaction: Encodable, Sendable {
        public var kind: String
        @NullEncoded public var to: String?
        public var value: String
        public var valueEth: String
        public var nonce: UInt64
        public var gasLimit: UInt64
        @NullEncoded public var maxFeePerGas: String?
        @NullEncoded public var maxPriorityFeePerGas: String?
        @NullEncoded public var gasPrice: String?
        @NullEncoded public var worstCaseFeeEth: String?
        public var dataLength: Int
        @NullEncoded public var call: Call?
        public var contractCreation: Bool
    }

    /// A decoded ERC-20 call (amount in the token's base units: the token's decimals are not in the request).
    public struct Call: Encodable, Sendable {
        public var function: String
        @NullEncoded public var from: String?
        @NullEncoded public var to: String?
        @NullEncoded public var spender: String?
        public var amount: String
        public var unlimited: Bool
    }

    /// A personal message: its text when printable (escaped where it holds hidden characters), and its bytes.
    public struct Message: Encodable, Sendable {
        @NullEncoded public var text: String?
        public var hex: String
        public var length: Int
    }

    /// EIP-712 typed data: its primary type, domain and the message's top-level fields.
    public struct TypedDataSummary: Encodable, Sendable {
        public var primaryType: String
        public var domain: [Field]
        public var fields: [Field]
        public var permit: Bool
    }

    /// One `name: value` of typed data (nested values shown as compact JSON, shortened).
    public struct Field: Encodable, Sendable {
        public var name: String
        public var value: String
    }

    /// The report of a request.
    ///
    /// - Throws: `CLIError(.invalidInput)` when the sign data does not decode as its data type says.
    public init(request: UREthSignRequest) throws(CLIError) {
        var json = JSON(type: "eth-sign-request")
        var lines: [(String, String)] = []
        var hidden = false
        func clean(_ value: String) -> String {
            let shown = DisplayText.show(value)
            if shown.hadHiddenCharacters { hidden = true }
            return shown.text
        }
        json.requestId = request.requestID.map(Self.hex)
        json.chainId = request.chainID
        json.chainName = request.chainID.flatMap(Self.chainName)
        // As wallets write it: m/44'/60'/0'/0/0.
        json.path =
            request.derivationPath.components.isEmpty
            ? nil : "m/" + request.derivationPath.pathText.replacingOccurrences(of: "h", with: "'")
        json.address = try request.address.map { (bytes) throws(CLIError) -> String in
            do { return try EthereumAddress(bytes: bytes).checksummed } catch {
                throw CLIError(.invalidInput, "the request's address is not 20 bytes")
            }
        }
        json.origin = request.origin.map(clean)
        lines.append(("Ethereum sign request", json.requestId ?? "(no request id)"))
        lines.append(
            (
                "chain",
                request.chainID.map { id in json.chainName.map { "\(id) (\($0))" } ?? "\(id)" } ?? "(not given)"
            ))
        lines.append(
            ("from", [json.address, json.path.map { "path \($0)" }].compactMap { $0 }.joined(separator: ", ")))
        if let origin = json.origin { lines.append(("origin", origin)) }
        switch request.dataType {
        case .legacyTransaction, .typedTransaction:
            json.dataType = request.dataType == .legacyTransaction ? "legacy-transaction" : "transaction"
            let transaction: EthereumTransaction
            do {
                transaction = try EthereumTransaction(unsignedSerialized: request.signData)
            } catch {
                throw CLIError(.invalidInput, "the request's transaction does not decode: \(error)")
            }
            let (summary, more, warnings) = Self.transaction(transaction, requestChain: request.chainID)
            json.transaction = summary
            json.warnings += warnings
            lines += more
        case .personalMessage:
            json.dataType = "personal-message"
            let message = PersonalMessage(bytes: request.signData)
            let text = message.printableText.map(clean)
            json.message = Message(text: text, hex: Self.hex(request.signData), length: request.signData.count)
            lines.append(("message", text.map { "\"\($0)\"" } ?? "\(request.signData.count) bytes, not text"))
            if text == nil { lines.append(("bytes", Self.short(Self.hex(request.signData)))) }
        case .typedData:
            json.dataType = "typed-data"
            let typed: TypedData
            do {
                typed = try TypedData(json: request.signData)
            } catch {
                throw CLIError(.invalidInput, "the request's typed data does not decode: \(error)")
            }
            let domain = Self.fields(typed.domain).map { Field(name: clean($0.name), value: clean($0.value)) }
            let fields = Self.fields(typed.message).map { Field(name: clean($0.name), value: clean($0.value)) }
            json.typedData = TypedDataSummary(
                primaryType: clean(typed.primaryType), domain: domain, fields: fields, permit: typed.isPermit)
            lines.append(("typed data", json.typedData?.primaryType ?? ""))
            for field in domain { lines.append(("  domain \(field.name)", field.value)) }
            for field in fields { lines.append(("  \(field.name)", field.value)) }
            if typed.isPermit {
                json.warnings.append("a permit: signing it lets the spender move tokens without a transaction")
            }
        }
        if hidden {
            json.hiddenCharacters = true
            json.warnings.append(DisplayText.hiddenCharactersWarning)
        }
        self.json = json
        text = Self.render(lines, warnings: json.warnings)
    }

    /// The report of a signature.
    public init(signature: UREthSignature) {
        var json = JSON(type: "eth-signature")
        json.requestId = signature.requestID.map(Self.hex)
        json.signature = Self.hex(signature.signature)
        var lines: [(String, String)] = [("Ethereum signature", "for request \(json.requestId ?? "(no request id)")")]
        if signature.signature.count >= 65 {
            json.r = Self.hex(Array(signature.signature[0..<32]))
            json.s = Self.hex(Array(signature.signature[32..<64]))
            let vBytes = Array(signature.signature[64...])
            json.v = (try? UInt256(bigEndian: vBytes))?.description ?? Self.hex(vBytes)
            lines += [("r", json.r ?? ""), ("s", json.s ?? ""), ("v", json.v ?? "")]
        } else {
            json.warnings.append("the signature has \(signature.signature.count) bytes, not r, s and v (65 or more)")
            lines.append(("signature", Self.short(json.signature ?? "")))
        }
        if let origin = signature.origin {
            let shown = DisplayText.show(origin)
            json.origin = shown.text
            lines.append(("origin", shown.text))
            if shown.hadHiddenCharacters {
                json.hiddenCharacters = true
                json.warnings.append(DisplayText.hiddenCharactersWarning)
            }
        }
        self.json = json
        text = Self.render(lines, warnings: json.warnings)
    }

    static func transaction(_ tx: EthereumTransaction, requestChain: UInt64?)
        -> (Transaction, [(String, String)], [String])
    {
        var lines: [(String, String)] = []
        var warnings: [String] = []
        var summary = Transaction(
            kind: "", to: tx.to?.checksummed, value: tx.value.amount.description, valueEth: tx.value.etherString,
            nonce: tx.nonce, gasLimit: tx.gasLimit, maxFeePerGas: nil, maxPriorityFeePerGas: nil, gasPrice: nil,
            worstCaseFeeEth: (try? tx.worstCaseFee())?.etherString, dataLength: tx.data.count, call: nil,
            contractCreation: tx.to == nil)
        switch tx.kind {
        case .legacy(let price), .accessList(let price):
            summary.kind = tx.typeByte == 1 ? "eip2930" : "legacy"
            summary.gasPrice = price.description
        case .dynamicFee(let priority, let cap):
            summary.kind = "eip1559"
            summary.maxFeePerGas = cap.description
            summary.maxPriorityFeePerGas = priority.description
        }
        lines.append(("to", tx.to?.checksummed ?? "(none: creates a contract)"))
        lines.append(("value", "\(tx.value.etherString) ETH"))
        if let decoded = try? ERC20Call(calldata: tx.data) {
            var call = Call(function: "", from: nil, to: nil, spender: nil, amount: "", unlimited: false)
            switch decoded {
            case .transfer(let to, let amount):
                call.function = "transfer"
                call.to = to.checksummed
                call.amount = amount.description
                lines.append(("token call", "transfer \(amount) base units to \(to.checksummed)"))
            case .approve(let spender, let amount):
                call.function = "approve"
                call.spender = spender.checksummed
                call.amount = amount.description
                call.unlimited = decoded.isUnlimitedApproval
                lines.append(
                    (
                        "token call",
                        "approve \(spender.checksummed) to spend "
                            + (call.unlimited ? "an unlimited amount" : "\(amount) base units")
                    ))
                if call.unlimited { warnings.append("an unlimited approval: the spender may take every token") }
            case .transferFrom(let from, let to, let amount):
                call.function = "transferFrom"
                call.from = from.checksummed
                call.to = to.checksummed
                call.amount = amount.description
                lines.append(
                    ("token call", "transferFrom \(from.checksummed) to \(to.checksummed), \(amount) base units"))
            }
            summary.call = call
            lines.append(("token contract", tx.to?.checksummed ?? "?"))
        } else if !tx.data.isEmpty {
            let selector = Self.hex(Array(tx.data.prefix(4)))
            lines.append(("data", "\(tx.data.count) bytes, selector 0x\(selector) (not decoded)"))
        }
        lines.append(("nonce", "\(tx.nonce)"))
        lines.append(("gas limit", "\(tx.gasLimit)"))
        switch tx.kind {
        case .legacy(let price), .accessList(let price):
            lines.append(("gas price", "\(Wei(price).gweiString) gwei"))
        case .dynamicFee(let priority, let cap):
            lines.append(("max fee", "\(Wei(cap).gweiString) gwei"))
            lines.append(("priority fee", "\(Wei(priority).gweiString) gwei"))
        }
        if let worst = summary.worstCaseFeeEth { lines.append(("worst-case fee", "\(worst) ETH")) }
        if tx.to == nil { warnings.append("creates a contract") }
        if tx.chainID == nil { warnings.append("no chain id in the transaction (no replay protection)") }
        if let requestChain, let own = tx.chainID, requestChain != own {
            warnings.append("the request says chain \(requestChain), the transaction chain \(own)")
        }
        return (summary, lines, warnings)
    }

    /// The top-level fields of a typed-data object, values as short text.
    static func fields(_ value: JSONValue) -> [(name: String, value: String)] {
        guard case .object(let members) = value else { return [] }
        return members.map { ($0.0, short(render($0.1))) }
    }

    static func render(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n
        case .string(let s): s
        case .array(let items): "[" + items.map(render).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { "\($0.0): \(render($0.1))" }.joined(separator: ", ") + "}"
        }
    }

    static func render(_ lines: [(String, String)], warnings: [String]) -> String {
        var out = ""
        for (label, value) in lines { out += "\(label): \(value)\n" }
        for warning in warnings { out += "warning: \(warning)\n" }
        return out
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.hexString }

    /// At most 64 characters, with an ellipsis and the full length when cut.
    static func short(_ text: String) -> String {
        text.count <= 64 ? text : String(text.prefix(61)) + "… (\(text.count) characters)"
    }

    /// Well-known chain names by id.
    public static func chainName(_ id: UInt64) -> String? {
        [
            1: "Ethereum mainnet", 10: "OP Mainnet", 56: "BNB Smart Chain", 137: "Polygon", 8453: "Base",
            42161: "Arbitrum One", 11_155_111: "Sepolia", 17000: "Holesky", 560_048: "Hoodi",
            131_277_322_940_537: "eth-tester devnet",
        ][id]
    }
}
