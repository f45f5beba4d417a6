import Bitcoin
import Testing

@testable import Watcher

/// Coin selection behaviour as Bitcoin Core describes it (src/wallet/coinselection.cpp): BnB finds changeless solutions
/// within the cost of change, SRD falls back with change, waste = Σ(fee − long-term fee) + change cost or excess.
@Suite("Coin selection: branch and bound, single random draw, waste")
struct CoinSelectionTests {
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    static func coin(_ sats: UInt64, _ n: Int) throws -> CoinCandidate {
        let txid = try Txid(bytes: [UInt8](repeating: UInt8(n & 0xff), count: 31) + [UInt8(n >> 8)])
        return CoinCandidate(outpoint: OutPoint(txid: txid, vout: 0), value: try Amount(sats: sats), inputVSize: 68)
    }

    /// 1 sat/vB, long-term 10 sat/vB: each input's fee is 68 sat, so its effective value is value − 68.
    static let params = SelectionParameters(feeRate: FeeRate(satsPerKVB: 1000), baseVSize: 42)

    @Test("BnB finds the exact changeless pair among decoys")
    func changeless() throws {
        // Target 300,000 + base fee 42: coins 100,068 + 200,042 have effective values 100,000 + 199,974... pick
        // values whose effective sum hits the target exactly.
        let needed: UInt64 = 300_000 + 42
        let coins = [
            try Self.coin(1_000_000, 1), try Self.coin(150_068, 2), try Self.coin(needed - 150_000 + 68, 3),
            try Self.coin(70_000, 4), try Self.coin(5_000, 5),
        ]
        var rng = Seeded(state: 1)
        let result = try CoinSelection.select(
            from: coins, target: try Amount(sats: 300_000), parameters: Self.params, using: &rng)
        #expect(result.algorithm == .branchAndBound)
        #expect(result.change == nil)
        #expect(Set(result.selected.map(\.outpoint)) == Set([coins[1].outpoint, coins[2].outpoint]))
        // Exact match: the fee is exactly the size-based fee, and the waste is the inputs' fee minus long-term fee.
        #expect(result.fee.sats == 42 + 68 * 2)
        #expect(result.waste == 2 * (68 - 680))
    }

    @Test("with no changeless solution, SRD selects with change")
    func fallback() throws {
        let coins = try (1...20).map { try Self.coin(UInt64(1_000_000 * $0 + 12_345), $0) }
        var rng = Seeded(state: 7)
        let result = try CoinSelection.select(
            from: coins, target: try Amount(sats: 2_500_000), parameters: Self.params, using: &rng)
        #expect(result.algorithm == .singleRandomDraw)
        let change = try #require(result.change)
        let total = result.selected.reduce(UInt64(0)) { $0 + $1.value.sats }
        #expect(total == 2_500_000 + result.fee.sats + change.sats)
        #expect(change.sats >= 50_000)
        // The fee pays for the inputs, the base and the change output at 1 sat/vB.
        #expect(result.fee.sats == UInt64(42 + 31 + 68 * result.selected.count))
    }

    @Test("insufficient funds reports what is needed and what is there")
    func insufficient() throws {
        let coins = [try Self.coin(10_000, 1), try Self.coin(20_000, 2)]
        var rng = Seeded(state: 3)
        #expect {
            try CoinSelection.select(
                from: coins, target: try Amount(sats: 40_000), parameters: Self.params, using: &rng)
        } throws: { error in
            guard case .insufficientFunds(let needed, let available) = error as? CoinSelectionError else {
                return false
            }
            return needed > 40_000 && available == 30_000 - 2 * 68
        }
    }

    @Test("coins worth less than their input fee are not selected")
    func uneconomical() throws {
        let params = SelectionParameters(feeRate: FeeRate(satsPerKVB: 100_000), baseVSize: 42)  // 100 sat/vB
        let coins = [try Self.coin(6_000, 1), try Self.coin(6_500, 2), try Self.coin(500_000, 3)]
        var rng = Seeded(state: 5)
        let result = try CoinSelection.select(
            from: coins, target: try Amount(sats: 100_000), parameters: params, using: &rng)
        #expect(result.selected.map(\.outpoint) == [coins[2].outpoint])
    }

    @Test("BnB prefers the solution with less waste: one input beats two when fees are above the long-term rate")
    func leastWaste() throws {
        let params = SelectionParameters(feeRate: FeeRate(satsPerKVB: 20_000), baseVSize: 42)  // 20 sat/vB > 10
        let inputFee: UInt64 = 68 * 20
        let target: UInt64 = 500_000
        let needed = target + 42 * 20
        let coins = [
            try Self.coin(needed + inputFee, 1),  // exact alone
            try Self.coin(needed / 2 + inputFee, 2), try Self.coin(needed - needed / 2 + inputFee, 3),  // exact pair
        ]
        var rng = Seeded(state: 9)
        let result = try CoinSelection.select(
            from: coins, target: try Amount(sats: target), parameters: params, using: &rng)
        #expect(result.algorithm == .branchAndBound)
        #expect(result.selected.map(\.outpoint) == [coins[0].outpoint])
    }

    @Test("spending named coins (coin control) makes change or refuses")
    func manual() throws {
        let coins = [try Self.coin(100_000, 1)]
        let result = try CoinSelection.spend(coins, target: try Amount(sats: 50_000), parameters: Self.params)
        #expect(result.change?.sats == 100_000 - 50_000 - UInt64(42 + 68 + 31))
        #expect(throws: CoinSelectionError.self) {
            try CoinSelection.spend(coins, target: try Amount(sats: 99_990), parameters: Self.params)
        }
        #expect(try CoinSelection.maxSendable(coins, parameters: Self.params).sats == 100_000 - 42 - 68)
    }

    @Test("the pool orders by effective value, largest first, then the smaller fee, ties kept in the candidates' order")
    func poolOrder() throws {
        var rng = Seeded(state: 41)
        // 500 coins from 40 values and two input sizes: many exact ties in value and fee.
        let coins = try (0..<500).map { n in
            var coin = try Self.coin(UInt64(10_000 + 1_000 * Int(rng.next() % 40)), n)
            coin.inputVSize = rng.next() % 2 == 0 ? 68 : 110
            return coin
        }
        let pool = CoinSelection.Pool(coins, Self.params)
        // The reference: each coin with its position, sorted by the whole key, so the order is unique.
        let expected = coins.enumerated().map { n, coin in
            let fee = Self.params.fee(coin.inputVSize, Self.params.feeRate)
            return (coin: coin, effective: Int64(coin.value.sats) - fee, fee: fee, position: n)
        }.sorted { a, b in
            (-a.effective, a.fee, a.position) < (-b.effective, b.fee, b.position)
        }
        #expect(pool.coins == expected.map(\.coin))
        #expect(pool.effective == expected.map(\.effective))
        #expect(pool.fees == expected.map(\.fee))
        let longTerm = expected.map { Self.params.fee($0.coin.inputVSize, Self.params.longTermFeeRate) }
        #expect(pool.waste == zip(expected, longTerm).map { $0.fee - $1 })
        #expect(Set(pool.coins.map(\.outpoint)).count == 500)
    }
}
