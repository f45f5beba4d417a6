import Bitcoin
import Descriptors

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

    /// The taproot leaf (1-based, in the tree's left-to-right order as the signer numbers them) of a `tr()` wallet's
    /// recovery path; nil for `wsh()` policies.
    public var leaf: Int? = nil

    /// The recovery path of `miniscript`: the path of the keys whose origin fingerprints are `fingerprints`, or
    /// with nil the first timelocked path found by the rule above.
    ///
    /// - Throws: `SpendError.inconsistent` when a fingerprint names no key of the policy, when those keys cannot spend,
    ///   or when their path needs no timelock (that is the primary path), or when no path needs a timelock.
    public static func recovery(of miniscript: Miniscript, fingerprints: [String]?) throws(SpendError) -> PolicyPath {
        try recovery(leaves: [(nil, miniscript)], fingerprints: fingerprints)
    }

    /// The recovery path of a `tr(KEY,TREE)` wallet with miniscript leaves.
    ///
    /// docs/miniscript.md, "send --recovery for taproot leaves": the same rule over every miniscript leaf, the leaf
    /// in descriptor order breaking ties. With
    /// `fingerprints`, the leaves those keys can spend on with a timelock, the earliest timelock first; the keys must
    /// not be able to spend only on leaves without one.
    ///
    /// - Throws: `SpendError.inconsistent` as `recovery(of:fingerprints:)`, and when the tree has no miniscript leaf.
    public static func recovery(ofTree tree: DescriptorTapTree, fingerprints: [String]?) throws(SpendError)
        -> PolicyPath
    {
        // `pk` and `multi_a` leaves are planned as the same miniscript (no timelock: never a recovery path, but
        // their keys are the tree's keys and spending them is the primary path).
        var leaves: [(Int?, Miniscript)] = []
        var hasMiniscript = false
        for (number, leaf) in tree.leaves.enumerated() {
            var text: String?
            switch leaf {
            case .miniscript(let miniscript):
                leaves.append((number + 1, miniscript))
                hasMiniscript = true
            case .pk(let key): text = "pk(\(key.string(includingPrivateKeys: false)))"
            case .multiA(let k, let keys, _):
                text =
                    "multi_a(\(k)," + keys.map { $0.string(includingPrivateKeys: false) }.joined(separator: ",") + ")"
            default: break
            }
            if let text, let miniscript = try? Miniscript(string: text, context: .tapscript) {
                leaves.append((number + 1, miniscript))
            }
        }
        guard hasMiniscript else { throw .inconsistent("this taproot wallet has no miniscript leaf") }
        return try recovery(leaves: leaves, fingerprints: fingerprints)
    }

    private static func recovery(leaves: [(leaf: Int?, miniscript: Miniscript)], fingerprints: [String]?)
        throws(SpendError) -> PolicyPath
    {
        // Every key of every leaf, by origin fingerprint; per leaf, the indexes of its keys in that list.
        var names: [String] = []
        var bytesByLeaf: [[[UInt8]]] = []
        var keyIndexes: [[Int]] = []
        for entry in leaves {
            let tapscript = entry.miniscript.context == .tapscript
            var leafBytes: [[UInt8]] = []
            var indexes: [Int] = []
            for key in entry.miniscript.keys {
                guard let derived = try? key.publicKey(at: 0, path: 0).key else {
                    throw .inconsistent("cannot derive the policy's key \(key.string(includingPrivateKeys: false))")
                }
                let bytes = tapscript ? derived.xOnly.key.bytes : derived.compressed
                let name = key.origin?.fingerprint.hexString ?? String(derived.compressed.hexString.prefix(8))
                leafBytes.append(bytes)
                if let existing = names.firstIndex(of: name) {
                    indexes.append(existing)
                } else {
                    indexes.append(names.count)
                    names.append(name)
                }
            }
            bytesByLeaf.append(leafBytes)
            keyIndexes.append(indexes)
        }
        /// The path of leaf `number` when the keys `chosen` (indexes into names) sign.
        func plan(_ number: Int, _ chosen: Set<Int>) -> PolicyPath? {
            let entry = leaves[number]
            let keys = Set(
                keyIndexes[number].indices.filter { chosen.contains(keyIndexes[number][$0]) }.map {
                    bytesByLeaf[number][$0]
                })
            guard let satisfaction = try? entry.miniscript.plan(keys: keys) else { return nil }
            let signing = Set(satisfaction.signingKeys)
            var signers: [String] = []
            for (position, bytes) in bytesByLeaf[number].enumerated() where signing.contains(bytes) {
                let name = names[keyIndexes[number][position]]
                if !signers.contains(name) { signers.append(name) }
            }
            return PolicyPath(
                relativeTimelock: satisfaction.relativeTimelock, absoluteTimelock: satisfaction.absoluteTimelock,
                signers: signers, leaf: entry.leaf)
        }
        func earliest(_ found: [PolicyPath]) -> PolicyPath? {
            found.min {
                ($0.relativeTimelock ?? 0, $0.absoluteTimelock ?? 0) < (
                    $1.relativeTimelock ?? 0, $1.absoluteTimelock ?? 0
                )
            }
        }
        if let fingerprints {
            let wanted = Set(fingerprints.map { $0.lowercased() })
            for fingerprint in wanted where !names.contains(fingerprint) {
                throw .inconsistent("--keys: \(fingerprint) is no key fingerprint of this policy")
            }
            let chosen = Set(names.indices.filter { wanted.contains(names[$0]) })
            let paths = leaves.indices.compactMap { plan($0, chosen) }
            guard !paths.isEmpty else {
                throw .inconsistent("--keys \(fingerprints.joined(separator: ",")) cannot spend under this policy")
            }
            guard let path = earliest(paths.filter(\.isTimelocked)) else {
                throw .inconsistent(
                    "--keys \(fingerprints.joined(separator: ",")) can spend without a timelock: that is the primary "
                        + "path (send without --recovery)")
            }
            return path
        }
        // The fewest keys first (subsets of up to 4 keys of a leaf, or single keys for wide leaves), then the
        // earliest timelock, then the leaf order.
        let widest = keyIndexes.map { Set($0).count }.max() ?? 0
        let limit = widest > 12 ? 1 : min(4, widest)
        for size in 1...max(1, limit) {
            var found: [PolicyPath] = []
            for number in leaves.indices {
                let own = Array(Set(keyIndexes[number])).sorted()
                for subset in Self.subsets(of: own.count, size: size) {
                    if let path = plan(number, Set(subset.map { own[$0] })), path.isTimelocked { found.append(path) }
                }
            }
            if let best = earliest(found) { return best }
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
