import AirgapTransport
import BitcoinCrypto
import ChainCore
import Codecs
import Ethereum
import Foundation

/// Building an EIP-1559 transaction and its EIP-4527 `eth-sign-request` (docs/architecture.md section 10); fees from
/// `eth_feeHistory` unless the user gives them; no networking here: the command reads the node and passes the values.
public enum EthereumSpend {
    /// What to send.
    public enum Payment: Sendable, Equatable {
        /// Ether, in wei.
        case ether(Wei)
        /// All the ether the address has beyond the worst-case fee.
        case allEther
        /// Tokens of `contract`, in base units.
        case token(contract: EthereumAddress, amount: UInt256)
    }

    /// The fees of a transaction.
    public struct Fees: Sendable, Equatable {
        public var maxFeePerGas: UInt256
        public var maxPriorityFeePerGas: UInt256

        public init(maxFeePerGas: UInt256, maxPriorityFeePerGas: UInt256) {
            self.maxFeePerGas = maxFeePerGas
            self.maxPriorityFeePerGas = maxPriorityFeePerGas
        }
    }

    /// The percentile of recent priority fees asked of `eth_feeHistory`.
    public static let rewardPercentile = 50.0

    /// Fees from a fee history: the priority fee is the median of the blocks' rewards at `rewardPercentile` (at
    /// least `fallbackPriority`, the node's `eth_maxPriorityFeePerGas`, when the blocks were empty), the cap twice the
    /// next block's base fee plus the priority fee, as wallets commonly do; `priority`/`maxFee` override each.
    ///
    /// - Throws: `EthereumWalletError.invalid` when the cap is below the priority fee.
    public static func fees(
        history: EthFeeHistory?, fallbackPriority: UInt256?, priority: UInt256?, maxFee: UInt256?
    ) throws(EthereumWalletError) -> Fees {
        var tip = priority
        if tip == nil {
            let rewards = (history?.reward ?? []).compactMap(\.first).sorted()
            let median = rewards.isEmpty ? nil : rewards[rewards.count / 2]
            if let median, !median.isZero {
                tip = median
            } else {
                tip = fallbackPriority ?? median ?? UInt256(1_000_000_000)
            }
        }
        let chosenTip = tip ?? .zero
        var cap = maxFee
        if cap == nil {
            guard let next = history?.baseFeePerGas.last else {
                throw .invalid("no base fee from the node; give --max-fee GWEI")
            }
            do { cap = try next.multiplied(by: 2).adding(chosenTip) } catch { throw .invalid("the base fee overflows") }
        }
        let chosenCap = cap ?? .zero
        guard chosenTip <= chosenCap else {
            throw .invalid(
                "the priority fee (\(Wei(chosenTip).gweiString) gwei) is above the max fee (\(Wei(chosenCap).gweiString) gwei)"
            )
        }
        return Fees(maxFeePerGas: chosenCap, maxPriorityFeePerGas: chosenTip)
    }

    /// A built request and the record the watcher keeps of it.
    public struct Built: Sendable {
        public var transaction: EthereumTransaction
        public var request: UREthSignRequest
        public var record: EthereumTxRecord
    }

    /// Builds the transaction from `entry` of `account` and its `eth-sign-request`.
    ///
    /// - Parameters:
    ///   - account: the sending account.
    ///   - entry: the sending address of the account.
    ///   - to: the recipient (of the ether, or of the tokens).
    ///   - payment: what to send.
    ///   - fees: the EIP-1559 fees.
    ///   - gasLimit: the gas limit (the node's estimate, with a margin the caller adds).
    ///   - nonce: the sender's next nonce (`pending`).
    ///   - balance: the sender's ether balance.
    ///   - tokenBalance: the sender's balance of the token (for a token payment).
    ///   - replaces: the request id this one replaces, if any.
    ///   - requestID: the EIP-4527 request id (random by default).
    /// - Returns: the transaction, its request and the record to keep.
    /// - Throws: `EthereumWalletError.refused` when the balance does not cover the value and the worst-case fee, or
    ///   the token amount.
    public static func build(
        account: EthereumAccount, entry: EthereumAccount.Entry, to: EthereumAddress, payment: Payment,
        fees: Fees, gasLimit: UInt64, nonce: UInt64, balance: Wei, tokenBalance: UInt256?, replaces: String? = nil,
        requestID: [UInt8] = randomRequestID()
    ) throws(EthereumWalletError) -> Built {
        let worstFee: UInt256
        do { worstFee = try fees.maxFeePerGas.multiplied(by: gasLimit) } catch { throw .invalid("the fee overflows") }
        var value = Wei(.zero)
        var data: [UInt8] = []
        var recipient = to
        var token: EthereumAddress?
        var tokenAmount: UInt256?
        switch payment {
        case .ether(let amount):
            value = amount
            let needed: UInt256
            do { needed = try amount.amount.adding(worstFee) } catch { throw .invalid("the amount overflows") }
            guard needed <= balance.amount else {
                throw .refused(
                    "\(entry.address) has \(balance.etherString) ETH; the payment and the worst-case fee need "
                        + Wei(needed).etherString + " ETH")
            }
        case .allEther:
            guard worstFee < balance.amount, let rest = try? Self.subtract(balance.amount, worstFee) else {
                throw .refused(
                    "\(entry.address) has \(balance.etherString) ETH, not more than the fee \(Wei(worstFee).etherString)"
                )
            }
            value = Wei(rest)
        case .token(let contract, let amount):
            guard let tokenBalance, amount <= tokenBalance else {
                throw .refused(
                    "\(entry.address) holds \(tokenBalance?.description ?? "none") base units of \(contract), less than \(amount)"
                )
            }
            guard worstFee <= balance.amount else {
                throw .refused(
                    "\(entry.address) has \(balance.etherString) ETH, less than the worst-case fee \(Wei(worstFee).etherString)"
                )
            }
            data = ERC20Call.transfer(to: to, amount: amount).calldata
            recipient = contract
            token = contract
            tokenAmount = amount
        }
        let transaction = EthereumTransaction(
            kind: .dynamicFee(maxPriorityFeePerGas: fees.maxPriorityFeePerGas, maxFeePerGas: fees.maxFeePerGas),
            chainID: account.chainID, nonce: nonce, gasLimit: gasLimit, to: recipient, value: value, data: data)
        let unsigned = transaction.unsignedSerialized()
        let request = UREthSignRequest(
            requestID: requestID, signData: unsigned, dataType: .typedTransaction, chainID: account.chainID,
            derivationPath: account.keypath(index: entry.index), address: entry.address.bytes, origin: "airlock-watcher"
        )
        let record = EthereumTxRecord(
            requestID: Hex.encode(requestID), status: .requested, hash: nil, from: entry.address, to: to, value: value,
            token: token, tokenAmount: tokenAmount, nonce: nonce, gasLimit: gasLimit, maxFeePerGas: fees.maxFeePerGas,
            maxPriorityFeePerGas: fees.maxPriorityFeePerGas, unsigned: unsigned, signed: nil, block: nil, gasUsed: nil,
            effectiveGasPrice: nil, replaces: replaces, createdAt: Int(Date().timeIntervalSince1970))
        return Built(transaction: transaction, request: request, record: record)
    }

    static func subtract(_ a: UInt256, _ b: UInt256) throws(EthereumWalletError) -> UInt256 {
        // a - b for a >= b, by adding the two's complement of b.
        guard b <= a else { throw .invalid("negative amount") }
        var limbsA = a.bigEndianBytes
        let limbsB = b.bigEndianBytes
        var borrow = 0
        for i in (0..<32).reversed() {
            var d = Int(limbsA[i]) - Int(limbsB[i]) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 256 }
            limbsA[i] = UInt8(d)
        }
        do { return try UInt256(bigEndian: limbsA) } catch { throw .invalid("negative amount") }
    }

    /// A random version-4 UUID (RFC 9562), the request id.
    public static func randomRequestID() -> [UInt8] {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return bytes
    }

    /// Parses a decimal amount with at most `decimals` fractional digits into base units (`1.5` of 6 decimals is
    /// 1500000).
    ///
    /// - Throws: `EthereumWalletError.invalid`.
    public static func baseUnits(_ text: String, decimals: Int) throws(EthereumWalletError) -> UInt256 {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else {
            throw .invalid("'\(text)' is not a decimal amount")
        }
        let whole = String(parts[0])
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard !(whole.isEmpty && fraction.isEmpty) else { throw .invalid("'\(text)' is not a decimal amount") }
        guard fraction.count <= decimals else {
            throw .invalid("'\(text)' has \(fraction.count) decimals; the token has \(decimals)")
        }
        let digits = (whole.isEmpty ? "0" : whole) + fraction + String(repeating: "0", count: decimals - fraction.count)
        do { return try UInt256(string: digits) } catch { throw .invalid("'\(text)' is too large") }
    }

    /// Base units as a decimal with all `decimals` places (`1.500000`).
    public static func decimalString(_ value: UInt256, decimals: Int) -> String { Wei.decimal(value, scale: decimals) }
}

extension EthereumSpend {
    /// The smallest raise a node accepts for a replacement: 10% on both fee fields (Geth's default price bump);
    /// 12.5% is used so that a base-fee-driven cap rounds clear of it.
    static func raised(_ value: UInt256) -> UInt256 {
        let (eighth, remainder) = value.quotientAndRemainder(dividingBy: 8)
        let bump = remainder == 0 ? eighth : ((try? eighth.adding(UInt256(1))) ?? eighth)
        return (try? value.adding(bump.isZero ? UInt256(1) : bump)) ?? value
    }

    /// A replacement of a `pending` (or `requested`) transaction: the same nonce, recipient, value and data, with fees
    /// at least 12.5% above the old ones (or `fees` when higher still).
    ///
    /// - Throws: `EthereumWalletError.refused` for a transaction that is mined, failed or replaced, or when the
    ///   balance does not cover the value and the new worst-case fee.
    public static func bump(
        _ record: EthereumTxRecord, account: EthereumAccount, fees suggested: Fees, balance: Wei,
        requestID: [UInt8] = randomRequestID()
    ) throws(EthereumWalletError) -> Built {
        guard record.status == .pending || record.status == .requested else {
            throw .refused(
                "transaction \(record.hash ?? record.requestID) is \(record.status.rawValue); only a pending one is bumped"
            )
        }
        guard let entry = account.entry(of: record.from) else { throw .invalid("the sender is not in this account") }
        let old: EthereumTransaction
        do { old = try EthereumTransaction(unsignedSerialized: record.unsigned) } catch {
            throw .invalid("the stored request does not parse: \(error)")
        }
        let tip = Swift.max(raised(record.maxPriorityFeePerGas), suggested.maxPriorityFeePerGas)
        let cap = Swift.max(raised(record.maxFeePerGas), suggested.maxFeePerGas, tip)
        let worst: UInt256
        do { worst = try cap.multiplied(by: old.gasLimit).adding(old.value.amount) } catch {
            throw .invalid("the fee overflows")
        }
        guard worst <= balance.amount else {
            throw .refused(
                "\(entry.address) has \(balance.etherString) ETH; the replacement needs \(Wei(worst).etherString)")
        }
        var transaction = old
        transaction.kind = .dynamicFee(maxPriorityFeePerGas: tip, maxFeePerGas: cap)
        let unsigned = transaction.unsignedSerialized()
        let request = UREthSignRequest(
            requestID: requestID, signData: unsigned, dataType: .typedTransaction, chainID: account.chainID,
            derivationPath: account.keypath(index: entry.index), address: entry.address.bytes, origin: "airlock-watcher"
        )
        var replacement = record
        replacement.requestID = Hex.encode(requestID)
        replacement.status = .requested
        replacement.hash = nil
        replacement.signed = nil
        replacement.maxFeePerGas = cap
        replacement.maxPriorityFeePerGas = tip
        replacement.unsigned = unsigned
        replacement.replaces = record.requestID
        replacement.createdAt = Int(Date().timeIntervalSince1970)
        return Built(transaction: transaction, request: request, record: replacement)
    }
}
