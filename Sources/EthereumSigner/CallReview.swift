import Bitcoin
import Codecs
import Ethereum
import Foundation
import Signer

/// The review lines of what a transaction or a typed-data permit lets others do with this account's tokens
/// (docs/threat-model.md, "Approvals judged by effect"): the spender or operator and the amount of every approval,
/// an allowance of 2^128 or more as "UNLIMITED (in effect)" with a warning, `setApprovalForAll(x, true)` always with a
/// warning, and transfers that take from this account.
struct CallReview {
    /// The signing account.
    let from: EthereumAddress
    /// The chain the signature is valid on (for the token list).
    let chainID: UInt64?
    /// The user's tokens (`token add`).
    let tokens: [EthereumToken]

    private(set) var lines: [EthereumReview.Line] = []
    private(set) var warnings: [String] = []
    /// The call in one line, for the audit journal.
    private(set) var summary: String?

    init(from: EthereumAddress, chainID: UInt64?, tokens: [EthereumToken]) {
        self.from = from
        self.chainID = chainID
        self.tokens = tokens
    }

    /// An allowance this large is unlimited in effect: no token has 2^128 base units in circulation.
    static let unlimitedThreshold: UInt256 = {
        var bytes = [UInt8](repeating: 0, count: 32)
        bytes[15] = 1
        return (try? UInt256(bigEndian: bytes)) ?? .max
    }()

    // MARK: Transactions

    mutating func transaction(_ tx: EthereumTransaction, call: ContractCall?, fee: Wei) {
        if let to = tx.to {
            lines.append(.init("To", to.checksummed))
        } else {
            lines.append(.init("To", "(contract creation)"))
            warnings.append("this transaction creates a contract")
        }
        lines.append(.init("Value", "\(tx.value.etherString) ETH"))
        lines.append(.init("Nonce", "\(tx.nonce)"))
        lines.append(.init("Gas limit", "\(tx.gasLimit)"))
        switch tx.kind {
        case .legacy(let price), .accessList(let price):
            lines.append(.init("Gas price", "\(Wei(price).gweiString) gwei"))
        case .dynamicFee(let tip, let cap):
            lines.append(.init("Max fee", "\(Wei(cap).gweiString) gwei"))
            lines.append(.init("Priority fee", "\(Wei(tip).gweiString) gwei"))
        }
        lines.append(.init("Worst-case fee", "\(fee.etherString) ETH"))
        guard let contract = tx.to else { return }
        if let call {
            self.call(call, contract: contract)
        } else if !tx.data.isEmpty {
            let text = "selector 0x\(Hex.encode(tx.data.prefix(4))), \(tx.data.count) bytes (not decoded)"
            lines.append(.init("Calldata", text))
            summary = text
        }
    }

    private func token(_ contract: EthereumAddress) -> EthereumToken? {
        EthereumToken.find(chainID: chainID, address: contract, userTokens: tokens)
    }

    /// A token contract as the review names it: `USDC (0xA0b8…)` when known, else its address.
    private func name(_ contract: EthereumAddress) -> String {
        token(contract).map { "\($0.symbol) (\(contract.checksummed))" } ?? contract.checksummed
    }

    /// An amount of `contract`'s tokens: in token units when known, else in base units (and a warning once).
    private mutating func amount(_ value: UInt256, of contract: EthereumAddress) -> String {
        if let token = token(contract) { return token.format(value) }
        let warning =
            "the token \(contract.checksummed) is not in the signer's token list: amounts are in base units "
            + "(add it with 'airlock-signer token add' to see token units)"
        if !warnings.contains(warning) { warnings.append(warning) }
        return "\(value) base units"
    }

    /// An allowance: "UNLIMITED (in effect)" from 2^128, with the warning naming the spender.
    private mutating func allowance(_ value: UInt256, of contract: EthereumAddress, spender: EthereumAddress) -> String
    {
        guard value >= Self.unlimitedThreshold else { return amount(value, of: contract) }
        let name = token(contract)?.symbol ?? "token \(contract.checksummed)"
        warnings.append(
            "unlimited token approval: \(spender.checksummed) may move all your \(name), now and in the future")
        return "UNLIMITED (in effect; \(value) base units)"
    }

    private mutating func takesFromThisAccount(_ owner: EthereumAddress, to: EthereumAddress, what: String) {
        guard owner == from else { return }
        warnings.append("this takes \(what) from your account \(from.checksummed) to \(to.checksummed)")
    }

    private mutating func add(_ label: String, _ text: String) {
        lines.append(.init(label, text))
        summary = summary.map { $0 + "; " + text } ?? text
    }

    private mutating func call(_ call: ContractCall, contract: EthereumAddress) {
        let known = token(contract) != nil
        switch call {
        case .transfer(let to, let value):
            add("ERC-20", "transfer \(amount(value, of: contract)) to \(to.checksummed)")
        case .approve(let spender, let value):
            lines.append(.init("Spender", spender.checksummed))
            add("ERC-20", "approve \(allowance(value, of: contract, spender: spender)) for \(spender.checksummed)")
            if !known {
                // ERC-721 `approve(address,uint256)` has the same selector: the same data approves one NFT.
                add(
                    "ERC-721",
                    "or, if \(contract.checksummed) is an NFT collection: \(spender.checksummed) may take "
                        + "token #\(value)")
            }
        case .increaseAllowance(let spender, let added):
            lines.append(.init("Spender", spender.checksummed))
            add(
                "ERC-20",
                "increase the allowance of \(spender.checksummed) by \(allowance(added, of: contract, spender: spender))"
            )
        case .decreaseAllowance(let spender, let subtracted):
            lines.append(.init("Spender", spender.checksummed))
            add("ERC-20", "decrease the allowance of \(spender.checksummed) by \(amount(subtracted, of: contract))")
        case .transferFrom(let owner, let to, let value):
            add("ERC-20", "transferFrom \(owner.checksummed) to \(to.checksummed), \(amount(value, of: contract))")
            if !known {
                add("ERC-721", "or, if \(contract.checksummed) is an NFT collection: token #\(value)")
            }
            takesFromThisAccount(owner, to: to, what: known ? "tokens" : "tokens (or an NFT)")
        case .setApprovalForAll(let op, let approved):
            lines.append(.init("Operator", op.checksummed))
            if approved {
                add("Approval", "setApprovalForAll: \(op.checksummed) may take every token of \(contract.checksummed)")
                warnings.append(
                    "\(op.checksummed) can take every token of the collection \(contract.checksummed), now and in "
                        + "the future (setApprovalForAll)")
            } else {
                add("Approval", "revoke the approval of \(op.checksummed) for every token of \(contract.checksummed)")
            }
        case .safeTransferFrom721(let owner, let to, let id):
            add(
                "NFT", "transfer token #\(id) of \(contract.checksummed) from \(owner.checksummed) to \(to.checksummed)"
            )
            takesFromThisAccount(owner, to: to, what: "the NFT #\(id)")
        case .safeTransferFrom1155(let owner, let to, let id, let value):
            add(
                "ERC-1155",
                "transfer \(value) of token #\(id) of \(contract.checksummed) from \(owner.checksummed) to "
                    + "\(to.checksummed)")
            takesFromThisAccount(owner, to: to, what: "tokens #\(id)")
        case .safeBatchTransferFrom1155(let owner, let to, let ids, let values):
            let items = zip(ids, values).map { "\($1) of #\($0)" }.joined(separator: ", ")
            add(
                "ERC-1155",
                "transfer \(items) of \(contract.checksummed) from \(owner.checksummed) to \(to.checksummed)")
            takesFromThisAccount(owner, to: to, what: "\(ids.count) kinds of tokens")
        case .permit(let owner, let spender, let value, let deadline):
            lines.append(.init("Spender", spender.checksummed))
            add(
                "Permit",
                "submits the permit of \(owner.checksummed): \(spender.checksummed) may spend "
                    + "\(allowance(value, of: contract, spender: spender)), until \(Self.time(deadline))")
        case .daiPermit(let holder, let spender, let expiry, let allowed):
            lines.append(.init("Spender", spender.checksummed))
            if allowed {
                let text = allowance(.max, of: contract, spender: spender)
                add(
                    "Permit",
                    "submits the permit of \(holder.checksummed): \(spender.checksummed) may spend \(text), until "
                        + Self.time(expiry))
            } else {
                add("Permit", "submits the permit of \(holder.checksummed) revoking \(spender.checksummed)")
            }
        case .permit2Approve(let tokenAddress, let spender, let value, let expiration):
            lines.append(.init("Spender", spender.checksummed))
            add(
                "Permit2",
                "approve \(spender.checksummed) to spend \(allowance(value, of: tokenAddress, spender: spender)) of "
                    + "\(name(tokenAddress)) through Permit2, until \(Self.time(expiration))")
        case .permit2Permit(let owner, let details, let spender, _):
            lines.append(.init("Spender", spender.checksummed))
            for detail in details {
                add(
                    "Permit2",
                    "submits the permit of \(owner.checksummed): \(spender.checksummed) may spend "
                        + "\(allowance(detail.amount, of: detail.token, spender: spender)) of "
                        + "\(name(detail.token)), until \(Self.time(detail.expiration))")
            }
        case .permit2PermitTransferFrom(let owner, let tokenAddress, _, let to, let requested):
            add(
                "Permit2",
                "transfer \(amount(requested, of: tokenAddress)) of \(name(tokenAddress)) from "
                    + "\(owner.checksummed) to \(to.checksummed)")
            takesFromThisAccount(owner, to: to, what: "tokens")
        case .permit2TransferFrom(let owner, let to, let value, let tokenAddress):
            add(
                "Permit2",
                "transfer \(amount(value, of: tokenAddress)) of \(name(tokenAddress)) from \(owner.checksummed) "
                    + "to \(to.checksummed)")
            takesFromThisAccount(owner, to: to, what: "tokens")
        }
    }

    // MARK: Typed data

    /// The permits among typed data (EIP-2612 and DAI `Permit`, Permit2's `PermitSingle`, `PermitBatch`,
    /// `PermitTransferFrom`, `PermitBatchTransferFrom`), recognised by their declared members.
    mutating func typedData(_ data: TypedData) {
        guard data.isPermit || data.primaryType.hasPrefix("Permit") else { return }
        warnings.append("this is a token permit: it lets the spender move your tokens")
        let message = data.message
        let fields = Set((data.types[data.primaryType] ?? []).map(\.name))
        let verifying = data.domain["verifyingContract"].flatMap(Self.address)
        guard let spender = message["spender"].flatMap(Self.address) else { return }
        lines.append(.init("Spender", spender.checksummed))
        // By the members declared (a superset: Permit2's witness variants add a `witness` member).
        if fields.isSuperset(of: ["owner", "spender", "value", "deadline"]) {
            if let value = message["value"].flatMap(Self.integer) {
                let until = Self.time(message["deadline"].flatMap(Self.integer))
                if let contract = verifying {
                    add(
                        "Permit",
                        "\(spender.checksummed) may spend \(allowance(value, of: contract, spender: spender)) of "
                            + "\(name(contract)), until \(until)")
                } else {
                    // No contract in the domain: the amount is still judged, in base units.
                    let shown =
                        value >= Self.unlimitedThreshold
                        ? "UNLIMITED (in effect; \(value) base units)" : "\(value) base units"
                    if value >= Self.unlimitedThreshold {
                        warnings.append(
                            "unlimited token approval: \(spender.checksummed) may move all your tokens of this "
                                + "domain, now and in the future")
                    }
                    add(
                        "Permit",
                        "\(spender.checksummed) may spend \(shown) of a token the domain does not name, until \(until)")
                }
            }
        } else if fields.isSuperset(of: ["holder", "spender", "expiry", "allowed"]) {
            guard let contract = verifying else { return }
            if message["allowed"] == .bool(true) {
                add(
                    "Permit",
                    "\(spender.checksummed) may spend \(allowance(.max, of: contract, spender: spender)) of "
                        + "\(name(contract)), until \(Self.time(message["expiry"].flatMap(Self.integer)))")
            } else {
                add("Permit", "revoke the allowance of \(spender.checksummed) on \(contract.checksummed)")
            }
        } else if fields.isSuperset(of: ["details", "spender", "sigDeadline"]) {
            let details: [JSONValue] =
                switch message["details"] {
                case .array(let items)?: items
                case let item?: [item]
                case nil: []
                }
            for detail in details {
                guard let tokenAddress = detail["token"].flatMap(Self.address),
                    let value = detail["amount"].flatMap(Self.integer)
                else { continue }
                add(
                    "Permit2",
                    "\(spender.checksummed) may spend \(allowance(value, of: tokenAddress, spender: spender)) of "
                        + "\(name(tokenAddress)), until "
                        + Self.time(detail["expiration"].flatMap(Self.integer)))
            }
        } else if fields.isSuperset(of: ["permitted", "spender", "deadline"]) {
            let permitted: [JSONValue] =
                switch message["permitted"] {
                case .array(let items)?: items
                case let item?: [item]
                case nil: []
                }
            for item in permitted {
                guard let tokenAddress = item["token"].flatMap(Self.address),
                    let value = item["amount"].flatMap(Self.integer)
                else { continue }
                add(
                    "Permit2",
                    "\(spender.checksummed) may take \(allowance(value, of: tokenAddress, spender: spender)) of "
                        + "\(name(tokenAddress)) from your account once, until "
                        + Self.time(message["deadline"].flatMap(Self.integer)))
            }
        }
    }

    static func address(_ value: JSONValue) -> EthereumAddress? {
        guard case .string(let text) = value else { return nil }
        return try? EthereumAddress(string: text)
    }

    static func integer(_ value: JSONValue) -> UInt256? {
        switch value {
        case .number(let literal): try? UInt256(string: literal)
        case .string(let text): try? UInt256(string: text)
        default: nil
        }
    }

    /// A deadline or expiration: the UTC date of a unix time, "no end" beyond year 9999.
    static func time(_ value: UInt256?) -> String {
        guard let value else { return "(no deadline given)" }
        guard let seconds = value.uint64, seconds <= 253_402_300_799 else { return "no end (\(value))" }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
