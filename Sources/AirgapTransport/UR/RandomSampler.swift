/// Walker's alias method over a discrete distribution, built exactly as bc-ur builds it (index lists reversed).
///
/// - SeeAlso: https://github.com/BlockchainCommons/bc-ur/blob/master/src/random-sampler.cpp
package struct RandomSampler: Sendable {
    private let probabilities: [Double]
    private let aliases: [Int]

    /// Builds the tables for `weights` (non-negative, positive sum).
    package init(weights: [Double]) {
        let n = weights.count
        let sum = weights.reduce(0, +)
        var p = weights.map { $0 * Double(n) / sum }
        var small: [Int] = []
        var large: [Int] = []
        for i in stride(from: n - 1, through: 0, by: -1) {
            if p[i] < 1 { small.append(i) } else { large.append(i) }
        }
        var probs = [Double](repeating: 0, count: n)
        var alias = [Int](repeating: 0, count: n)
        while let a = small.last, let g = large.last {
            small.removeLast()
            large.removeLast()
            probs[a] = p[a]
            alias[a] = g
            p[g] += p[a] - 1
            if p[g] < 1 { small.append(g) } else { large.append(g) }
        }
        while let g = large.popLast() { probs[g] = 1 }
        while let a = small.popLast() { probs[a] = 1 }
        probabilities = probs
        aliases = alias
    }

    /// Draws one index using two doubles from `random`.
    package func next(_ random: () -> Double) -> Int {
        let r1 = random()
        let r2 = random()
        let n = probabilities.count
        let i = min(Int(Double(n) * r1), n - 1)
        return r2 < probabilities[i] ? i : aliases[i]
    }
}
