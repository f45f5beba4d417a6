import Bitcoin

/// The spending path of a miniscript policy wallet that a spend takes (docs/miniscript.md, "Spending paths").
///
/// The primary path needs no timelock: nSequence and nLockTime stay as for any spend. `send --recovery` takes a path
/// that needs one: the plan (`Miniscript.plan`) of the keys named with `--keys`, or else of the fewest keys that can
/// spend only with a timelock, the earliest timelock first, then descriptor order.
public struct PolicyPath: Sendable, Equatable {
    /// The `older()` value the path needs (the inputs' nSequence), if any.
    public var relativeTimelock: UInt32?
    /// The `after()` value the path needs (the transaction's nLockTime), if any.
    public var absoluteTimelock: UInt32?
    /// The master fingerprints of the keys that sign on this path (descriptor order), hex.
    public var signers: [String]

    /// Whether the path needs a timelock.
    public var isTimelocked: Bool { relativeTimelock != nil || absoluteTimelock != nil }

    /// The recovery path of `miniscript`: the path of the keys whose origin fingerprints are `fingerprints`, or
    /// with nil the first timelocked path found by the rule above.
    ///
    /// - Throws: `SpendError.inconsistent` when a fingerprint names no key of the policy, when those keys cannot spend,
    ///   or when their path needs no timelock (that is the primary path), or when no path needs a timelock.
    public static func recovery(of miniscript: Miniscript, fingerprints: [String]?) throws(SpendError) -> PolicyPath {
        let keys = miniscript.keys
        var bytes: [[UInt8]] = []
        var names: [String] = []
        for key in keys {
            guard let derived = try? key.publicKey(at: 0, path: 0).key.compressed else {
                throw .inconsistent("cannot derive the policy's key \(key.string(includingPrivateKeys: false))")
            }
            bytes.append(derived)
            names.append(key.origin?.fingerprint.hexString ?? String(derived.hexString.prefix(8)))
        }
        func plan(_ chosen: [Int]) -> PolicyPath? {
            guard let satisfaction = try? miniscript.plan(keys: Set(chosen.map { bytes[$0] })) else { return nil }
            let signing = Set(satisfaction.signingKeys)
            return PolicyPath(
                relativeTimelock: satisfaction.relativeTimelock, absoluteTimelock: satisfaction.absoluteTimelock,
                signers: keys.indices.filter { signing.contains(bytes[$0]) }.map { names[$0] })
        }
        if let fingerprints {
            let wanted = Set(fingerprints.map { $0.lowercased() })
            for fingerprint in wanted where !names.contains(fingerprint) {
                throw .inconsistent("--keys: \(fingerprint) is no key fingerprint of this policy")
            }
            let chosen = keys.indices.filter { wanted.contains(names[$0]) }
            guard let path = plan(chosen) else {
                throw .inconsistent("--keys \(fingerprints.joined(separator: ",")) cannot spend under this policy")
            }
            guard path.isTimelocked else {
                throw .inconsistent(
                    "--keys \(fingerprints.joined(separator: ",")) can spend without a timelock: that is the primary "
                        + "path (send without --recovery)")
            }
            return path
        }
        // The fewest keys first (subsets of up to 4 keys, or single keys for wide policies).
        let limit = keys.count > 12 ? 1 : min(4, keys.count)
        for size in 1...max(1, limit) {
            var found: [PolicyPath] = []
            for subset in Self.subsets(of: keys.count, size: size) {
                if let path = plan(subset), path.isTimelocked { found.append(path) }
            }
            if let best = found.min(by: {
                ($0.relativeTimelock ?? 0, $0.absoluteTimelock ?? 0) < (
                    $1.relativeTimelock ?? 0, $1.absoluteTimelock ?? 0
                )
            }) {
                return best
            }
        }
        throw .inconsistent("no spending path of this policy needs a timelock: there is no recovery path")
    }

    /// The index sets of `size` elements of 0..<count, in lexicographic order.
    static func subsets(of count: Int, size: Int) -> [[Int]] {
        guard size > 0, size <= count else { return [] }
        var result: [[Int]] = []
        var current: [Int] = []
        func walk(_ start: Int) {
            if current.count == size {
                result.append(current)
                return
            }
            guard start < count else { return }
            for next in start..<count {
                current.append(next)
                walk(next + 1)
                current.removeLast()
            }
        }
        walk(0)
        return result
    }

    /// When a spend on this path becomes valid for a coin confirmed at `coinHeight` (nil: unconfirmed) with the chain
    /// at `tip`: the first tip height at which the node accepts it into its mempool (BIP68: the coin has `n`
    /// confirmations; BIP65: the next block's height is above nLockTime), or nil when that cannot be told in blocks
    /// (an unconfirmed coin, a time-based lock).
    public func validFromTip(coinHeight: Int?, lockTime: UInt32) -> Int? {
        var height = 0
        if let relative = relativeTimelock {
            guard relative & (1 << 22) == 0, let coinHeight else { return nil }
            height = max(height, coinHeight + Int(relative & 0xFFFF) - 1)
        }
        if absoluteTimelock != nil {
            guard lockTime < LockTime.threshold else { return nil }
            height = max(height, Int(lockTime))
        }
        return height
    }
}
