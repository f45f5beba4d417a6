import ChainCore
import Ethereum
import Watcher

/// How the watcher reads the amounts, fees and addresses a user types for Ethereum (docs/architecture.md section 10).
public enum EthereumInputs {
    /// Parses an ETH amount: `0.1eth`, `5gwei`, `100wei`.
    ///
    /// - Throws: `EthereumWalletError.amountWithoutUnit` for a bare number (0.1 ETH and 0.1 gwei differ by a factor of
    ///   a billion, DESIGN section 11); `.invalid` for anything else that is not an amount.
    public static func etherAmount(_ text: String) throws(EthereumWalletError) -> Wei {
        let lower = text.lowercased()
        if !lower.isEmpty, lower.allSatisfy({ $0.isNumber || $0 == "." }) { throw .amountWithoutUnit(text) }
        do {
            if lower.hasSuffix("gwei") {
                return Wei(try EthereumSpend.baseUnits(String(lower.dropLast(4)), decimals: 9))
            }
            if lower.hasSuffix("wei") {
                return Wei(try EthereumSpend.baseUnits(String(lower.dropLast(3)), decimals: 0))
            }
            let number = lower.hasSuffix("eth") ? String(lower.dropLast(3)) : lower
            return Wei(try EthereumSpend.baseUnits(number, decimals: 18))
        } catch {
            throw .invalid("invalid --amount '\(text)': use 0.1eth, 5gwei or 100wei")
        }
    }

    /// Parses a fee per gas given in gwei (`--max-fee`, `--priority-fee`) into wei.
    public static func gwei(_ text: String, option: String) throws(EthereumWalletError) -> UInt256 {
        do { return try EthereumSpend.baseUnits(text, decimals: 9) } catch {
            throw .invalid("invalid \(option) '\(text)': a number of gwei with at most 9 decimals")
        }
    }

    /// Parses an address the user gave as `what`.
    public static func address(_ text: String, what: String) throws(EthereumWalletError) -> EthereumAddress {
        do { return try EthereumAddress(string: text) } catch {
            throw .invalid("\(what) '\(text)' is not an Ethereum address (0x and 40 hex digits, EIP-55)")
        }
    }

    /// The gas limit to ask for, from the node's estimate: a contract call (`isContractCall`), or a plain transfer
    /// the node estimates above 21,000 (the recipient is a contract), gets 20% more, since a contract's gas can
    /// change between the estimate and inclusion; a plain 21,000 transfer gets exactly its estimate.
    public static func gasLimit(estimate: UInt64, isContractCall: Bool) -> UInt64 {
        guard isContractCall || estimate > 21000 else { return estimate }
        let (margined, overflow) = estimate.addingReportingOverflow(estimate / 5)
        return overflow ? .max : margined
    }
}
