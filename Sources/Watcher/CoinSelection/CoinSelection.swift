import Bitcoin

/// A coin that selection may spend: its outpoint, value, and the virtual size its input adds to a transaction.
public struct CoinCandidate: Sendable, Equatable {
    public var outpoint: OutPoint
    public var value: Amount
    /// The input's virtual size once signed (outpoint, sequence, script and witness), in vbytes.
    public var inputVSize: Int

    public init(outpoint: OutPoint, value: Amount, inputVSize: Int) {
        self.outpoint = outpoint
        self.value = value
        self.inputVSize = inputVSize
    }
}

/// The fee side of coin selection, as in Bitcoin Core's `CoinSelectionParams`.
public struct SelectionParameters: Sendable {
    /// The fee rate of this transaction.
    public var feeRate: FeeRate
    /// The fee rate the wallet expects to pay in the long run (Core's default is 10 sat/vB), for the waste metric.
    public var longTermFeeRate: FeeRate
    /// The vsize of everything but the inputs: version, locktime, counts, segwit marker, the recipients' outputs.
    public var baseVSize: Int
    /// The vsize of a change output.
    public var changeOutputVSize: Int
    /// The vsize of the input that later spends the change.
    public var changeSpendVSize: Int
    /// Change below this is not made: it goes to the fee.
    public var dustThreshold: Amount

    public init(
        feeRate: FeeRate, longTermFeeRate: FeeRate = FeeRate(satsPerKVB: 10_000), baseVSize: Int,
        changeOutputVSize: Int = 31, changeSpendVSize: Int = 68, dustThreshold: Amount = .dust
    ) {
        self.feeRate = feeRate
        self.longTermFeeRate = longTermFeeRate
        self.baseVSize = baseVSize
        self.changeOutputVSize = changeOutputVSize
        self.changeSpendVSize = changeSpendVSize
        self.dustThreshold = dustThreshold
    }

    /// The fee for `vsize` at the fee rate, rounded up (sats).
    func fee(_ vsize: Int, _ rate: FeeRate) -> Int64 {
        let product = Int64(rate.satsPerKVB) * Int64(vsize)
        return product / 1000 + (product % 1000 == 0 ? 0 : 1)
    }

    /// Creating a change output now plus spending it later: Core's `cost_of_change`.
    public var costOfChange: Int64 { fee(changeOutputVSize, feeRate) + fee(changeSpendVSize, longTermFeeRate) }
}

/// How a selection was found.
public enum SelectionAlgorithm: String, Sendable, Codable {
    /// Branch and bound: an exact match within the cost of change, no change output.
    case branchAndBound = "bnb"
    /// Single random draw, with change.
    case singleRandomDraw = "srd"
    /// The coins the user named (`--utxo`) or every coin (`--max`).
    case manual

    /// How a user reads it: "coins chosen by single random draw", ….
    public var displayName: String {
        switch self {
        case .branchAndBound: "coins chosen by branch and bound (an exact match, no change)"
        case .singleRandomDraw: "coins chosen by single random draw"
        case .manual: "the coins given (--utxo or --max)"
        }
    }
}

/// The outcome of coin selection.
public struct CoinSelectionResult: Sendable, Equatable {
    public var selected: [CoinCandidate]
    /// The fee the transaction pays.
    public var fee: Amount
    /// The change, nil when there is none.
    public var change: Amount?
    /// The waste metric of the selection (sats; may be negative when the fee rate is below the long-term rate).
    public var waste: Int64
    public var algorithm: SelectionAlgorithm
}

/// Errors of coin selection.
public enum CoinSelectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The spendable coins do not cover the amount and the fee: what is needed and what is there (sats).
    case insufficientFunds(needed: UInt64, available: UInt64)
    /// A computed amount overflowed or went negative.
    case amountOutOfRange

    public var description: String {
        switch self {
        case .insufficientFunds(let needed, let available):
            "insufficient funds: need \(Amount(uncheckedSats: needed).btcString) BTC with the fee, "
                + "spendable \(Amount(uncheckedSats: available).btcString) BTC"
        case .amountOutOfRange: "an amount is out of range"
        }
    }
}

extension Amount {
    /// The dust threshold the watcher uses for change: 546 sat (a P2PKH output at 3 sat/vB, as Core rounds it).
    public static let dust = Amount(uncheckedSats: 546)

    init(uncheckedSats sats: UInt64) {
        self = (try? Amount(sats: sats)) ?? .maxMoney
    }
}

/// Coin selection as in Bitcoin Core: branch and bound on the waste metric for a changeless solution, then a single
/// random draw with change.
///
/// Effective values are at the transaction's fee rate; the waste of a selection is
/// Σ(fee − long-term fee) of its inputs plus the cost of change when it has change, or the excess over the target
/// when it has none.
public enum CoinSelection {
    /// Core's BnB search limit.
    public static let maxTries = 100_000
    /// Core's lower bound for SRD's change target (`CHANGE_LOWER`).
    public static let changeLower: Int64 = 50_000

    /// Selects coins paying `target` (the recipients' sum) at `parameters`.
    ///
    /// - Throws: `CoinSelectionError.insufficientFunds`.
    public static func select(
        from candidates: [CoinCandidate], target: Amount, parameters: SelectionParameters,
        using generator: inout some RandomNumberGenerator
    ) throws(CoinSelectionError) -> CoinSelectionResult {
        let pool = Pool(candidates, parameters)
        let needed = Int64(target.sats) + parameters.fee(parameters.baseVSize, parameters.feeRate)
        if let indexes = branchAndBound(pool, target: needed, costOfChange: parameters.costOfChange) {
            return try result(
                indexes.map { pool.coins[$0] }, target: target, parameters: parameters, algorithm: .branchAndBound)
        }
        if let coins = singleRandomDraw(pool, target: needed, parameters: parameters, using: &generator) {
            return try result(coins, target: target, parameters: parameters, algorithm: .singleRandomDraw)
        }
        let available = pool.effective.filter { $0 > 0 }.reduce(0, +)
        throw .insufficientFunds(
            needed: UInt64(needed + parameters.fee(parameters.changeOutputVSize, parameters.feeRate)),
            available: UInt64(max(0, available)))
    }

    /// Spends exactly `coins` (coin control or `--max`): change when worth it, else the rest goes to the fee.
    ///
    /// - Throws: `CoinSelectionError.insufficientFunds`.
    public static func spend(_ coins: [CoinCandidate], target: Amount, parameters: SelectionParameters)
        throws(CoinSelectionError) -> CoinSelectionResult
    {
        try result(coins, target: target, parameters: parameters, algorithm: .manual)
    }

    /// The amount a single recipient gets when `coins` are all spent with no change (`--max`).
    ///
    /// - Throws: `CoinSelectionError.insufficientFunds` when the fee eats everything.
    public static func maxSendable(_ coins: [CoinCandidate], parameters: SelectionParameters) throws(CoinSelectionError)
        -> Amount
    {
        let vsize = parameters.baseVSize + coins.reduce(0) { $0 + $1.inputVSize }
        let total = coins.reduce(Int64(0)) { $0 + Int64($1.value.sats) }
        let left = total - parameters.fee(vsize, parameters.feeRate)
        guard left >= Int64(parameters.dustThreshold.sats) else {
            throw .insufficientFunds(
                needed: UInt64(max(0, total - left)) + parameters.dustThreshold.sats, available: UInt64(total))
        }
        return Amount(uncheckedSats: UInt64(left))
    }

    /// The candidates with their effective values and waste, sorted by effective value, largest first.
    struct Pool {
        var coins: [CoinCandidate] = []
        var effective: [Int64] = []
        var waste: [Int64] = []
        var fees: [Int64] = []

        init(_ candidates: [CoinCandidate], _ parameters: SelectionParameters) {
            var effective: [Int64] = []
            var waste: [Int64] = []
            var fees: [Int64] = []
            effective.reserveCapacity(candidates.count)
            waste.reserveCapacity(candidates.count)
            fees.reserveCapacity(candidates.count)
            for coin in candidates {
                let fee = parameters.fee(coin.inputVSize, parameters.feeRate)
                let longTerm = parameters.fee(coin.inputVSize, parameters.longTermFeeRate)
                effective.append(Int64(coin.value.sats) - fee)
                waste.append(fee - longTerm)
                fees.append(fee)
            }
            // Positions are sorted, not the candidates themselves (10,000 of them for a large wallet, issue 19); ties
            // keep the candidates' order, as a stable sort of the candidates did.
            var order = Array(candidates.indices)
            effective.withUnsafeBufferPointer { effective in
                fees.withUnsafeBufferPointer { fees in
                    order.sort { a, b in
                        effective[a] != effective[b]
                            ? effective[a] > effective[b] : fees[a] != fees[b] ? fees[a] < fees[b] : a < b
                    }
                }
            }
            coins = order.map { candidates[$0] }
            self.effective = order.map { effective[$0] }
            self.waste = order.map { waste[$0] }
            self.fees = order.map { fees[$0] }
        }
    }

    /// Depth-first search over include/exclude decisions for the input set whose effective value lies in [target,
    /// target + costOfChange] with the least waste; nil when none is found within `maxTries`.
    static func branchAndBound(_ pool: Pool, target: Int64, costOfChange: Int64) -> [Int]? {
        let count = pool.effective.firstIndex { $0 <= 0 } ?? pool.effective.count
        var suffix = [Int64](repeating: 0, count: count + 1)
        for i in stride(from: count - 1, through: 0, by: -1) { suffix[i] = suffix[i + 1] + pool.effective[i] }
        guard suffix[0] >= target else { return nil }
        // Adding inputs only raises the waste when the fee rate is above the long-term rate.
        let wasteGrows = pool.waste.prefix(count).first.map { $0 > 0 } ?? false
        var selected: [Int] = []
        var index = 0
        var value: Int64 = 0
        var waste: Int64 = 0
        var best: [Int]?
        var bestWaste = Int64.max
        for _ in 0..<maxTries {
            var backtrack = false
            if value + suffix[index] < target || value > target + costOfChange || (wasteGrows && waste > bestWaste) {
                backtrack = true
            } else if value >= target {
                let total = waste + (value - target)
                if total <= bestWaste {
                    best = selected
                    bestWaste = total
                }
                backtrack = true
            } else if index >= count {
                backtrack = true
            }
            if backtrack {
                guard let last = selected.popLast() else { break }
                value -= pool.effective[last]
                waste -= pool.waste[last]
                index = last + 1
                // Excluding a coin and then including an equal one gives the same sets: skip the equal ones.
                while index < count, pool.effective[index] == pool.effective[last], pool.fees[index] == pool.fees[last]
                {
                    index += 1
                }
                continue
            }
            selected.append(index)
            value += pool.effective[index]
            waste += pool.waste[index]
            index += 1
        }
        return best
    }

    /// Draws coins in random order until they pay the target, a change output and at least `changeLower` of change
    /// (falling back to the dust threshold as the change floor when the wallet is too small for that).
    static func singleRandomDraw(
        _ pool: Pool, target: Int64, parameters: SelectionParameters, using generator: inout some RandomNumberGenerator
    ) -> [CoinCandidate]? {
        let usable = pool.coins.indices.filter { pool.effective[$0] > 0 }.shuffled(using: &generator)
        let changeFee = parameters.fee(parameters.changeOutputVSize, parameters.feeRate)
        for floor in [changeLower, Int64(parameters.dustThreshold.sats)] {
            var value: Int64 = 0
            var picked: [CoinCandidate] = []
            for i in usable {
                picked.append(pool.coins[i])
                value += pool.effective[i]
                if value >= target + changeFee + floor { return picked }
            }
        }
        return nil
    }

    /// Fee, change and waste of spending `coins` for `target`.
    static func result(
        _ coins: [CoinCandidate], target: Amount, parameters: SelectionParameters, algorithm: SelectionAlgorithm
    ) throws(CoinSelectionError) -> CoinSelectionResult {
        let inputVSize = coins.reduce(0) { $0 + $1.inputVSize }
        let total = coins.reduce(Int64(0)) { $0 + Int64($1.value.sats) }
        let inputWaste = coins.reduce(Int64(0)) {
            $0 + parameters.fee($1.inputVSize, parameters.feeRate)
                - parameters.fee($1.inputVSize, parameters.longTermFeeRate)
        }
        let changelessFee = parameters.fee(parameters.baseVSize + inputVSize, parameters.feeRate)
        let withChangeFee = parameters.fee(
            parameters.baseVSize + inputVSize + parameters.changeOutputVSize, parameters.feeRate)
        let amount = Int64(target.sats)
        guard total >= amount + changelessFee else {
            throw .insufficientFunds(needed: UInt64(amount + changelessFee), available: UInt64(total))
        }
        let change = total - amount - withChangeFee
        if algorithm != .branchAndBound, change >= Int64(parameters.dustThreshold.sats) {
            return CoinSelectionResult(
                selected: coins, fee: Amount(uncheckedSats: UInt64(withChangeFee)),
                change: Amount(uncheckedSats: UInt64(change)),
                waste: inputWaste + parameters.costOfChange, algorithm: algorithm)
        }
        let fee = total - amount
        return CoinSelectionResult(
            selected: coins, fee: Amount(uncheckedSats: UInt64(fee)), change: nil,
            waste: inputWaste + (fee - changelessFee), algorithm: algorithm)
    }
}
