import Bitcoin

/// The spending policy of a miniscript in words, for a signer's review screen.
extension Miniscript {
    /// The policy in words, such as "2 of A, B, C; or D after 10 blocks (about 100 minutes)".
    ///
    /// `name` gives a key's display name (a cosigner's name); keys it does not name are shown as "key" and the
    /// master fingerprint of their origin, or the first 8 hex digits of a bare key. Wrappers are not shown; `;` separates
    /// alternatives, parentheses group an alternative inside a condition.
    ///
    /// `name` is `@escaping` rather than wrapped in `withoutActuallyEscaping`: swiftc 6.3.1 passes that check's runtime
    /// call the length of the unmapped source path (beside the `-file-prefix-map`ped string), so the object code
    /// depended on the build directory (docs/reproducible.md).
    public func policyDescription(name: @escaping (DescriptorKey) -> String? = { _ in nil }) -> String {
        PolicyWords(name: name).words(node, insideAnd: false)
    }

    /// A path's timelocks in the words of `policyDescription` (`after 10 blocks (about 100 minutes)`, `after block
    /// 900,000`, joined by "and"); nil when there is none.
    public static func timelockWords(relative: UInt32?, absolute: UInt32?) -> String? {
        let words = PolicyWords(name: { _ in nil })
        let parts = [relative.map { words.timelock(.older($0)) }, absolute.map { words.timelock(.after($0)) }]
            .compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " and ")
    }
}

private struct PolicyWords {
    let name: (DescriptorKey) -> String?

    func keyName(_ key: DescriptorKey) -> String {
        if let given = name(key) { return given }
        if let origin = key.origin { return "key \(origin.fingerprint)" }
        if case .extended(let extended) = key.material {
            return "key \(extended.extendedPublicKey.fingerprint)"
        }
        return "key " + String(key.string(includingPrivateKeys: false).prefix(8))
    }

    /// The node under wrappers (which do not change the policy).
    func stripped(_ node: MiniscriptNode) -> MiniscriptNode {
        switch node {
        case .alt(let x), .swap(let x), .check(let x), .dupIf(let x), .verify(let x), .nonZero(let x),
            .zeroNotEqual(let x):
            stripped(x)
        case .andV(let x, let y) where y.isOne: stripped(x)
        case .orI(let x, let y) where x.isZero: stripped(y)
        case .orI(let x, let y) where y.isZero: stripped(x)
        default: node
        }
    }

    func isTimelock(_ node: MiniscriptNode) -> Bool {
        switch stripped(node) {
        case .older, .after: true
        default: false
        }
    }

    func singleKey(_ node: MiniscriptNode) -> DescriptorKey? {
        switch stripped(node) {
        case .pkK(let key), .pkH(let key): key
        case .multi(1, let keys) where keys.count == 1, .multiA(1, let keys) where keys.count == 1: keys[0]
        default: nil
        }
    }

    func timelock(_ node: MiniscriptNode) -> String {
        switch stripped(node) {
        case .older(let n) where n & (1 << 22) != 0:
            let seconds = Int(n & 0xFFFF) * 512
            return
                "after \(LockTimeReview.grouped(Int64(seconds))) seconds (about \(LockTimeReview.duration(seconds: Int64(seconds))))"
        case .older(let n):
            let blocks = n & 0xFFFF
            let unit = blocks == 1 ? "block" : "blocks"
            return
                "after \(LockTimeReview.grouped(Int64(blocks))) \(unit) (about \(LockTimeReview.duration(seconds: Int64(blocks) * 600)))"
        case .after(let n) where n >= 500_000_000:
            return "after " + LockTimeReview.utc(n)
        case .after(let n):
            return "after block \(LockTimeReview.grouped(Int64(n)))"
        default:
            return ""
        }
    }

    func conjunction(_ parts: [MiniscriptNode]) -> String {
        let locks = parts.filter(isTimelock).map(timelock)
        let rest = parts.filter { !isTimelock($0) }.map { words($0, insideAnd: true) }
        if rest.isEmpty { return locks.joined(separator: " and ") }
        return ([rest.joined(separator: " and ")] + locks).joined(separator: " ")
    }

    func disjunction(_ parts: [String], insideAnd: Bool) -> String {
        let text = parts.joined(separator: "; or ")
        return insideAnd ? "(\(text))" : text
    }

    func words(_ node: MiniscriptNode, insideAnd: Bool) -> String {
        let node = stripped(node)
        switch node {
        case .zero: return "never"
        case .one: return "always"
        case .pkK(let key), .pkH(let key): return keyName(key)
        case .older, .after: return timelock(node)
        case .sha256(let h): return "the SHA-256 preimage of \(h.hexString.prefix(8))…"
        case .hash256(let h): return "the HASH256 preimage of \(h.hexString.prefix(8))…"
        case .ripemd160(let h): return "the RIPEMD-160 preimage of \(h.hexString.prefix(8))…"
        case .hash160(let h): return "the HASH160 preimage of \(h.hexString.prefix(8))…"
        case .multi(let k, let keys), .multiA(let k, let keys):
            if keys.count == 1 { return keyName(keys[0]) }
            return "\(k) of " + keys.map(keyName).joined(separator: ", ")
        case .andV(let x, let y), .andB(let x, let y):
            return conjunction(flattenAnd(x) + flattenAnd(y))
        case .andOr(let x, let y, let z):
            if z.isZero { return conjunction(flattenAnd(x) + flattenAnd(y)) }
            return disjunction(
                [conjunction(flattenAnd(x) + flattenAnd(y)), words(z, insideAnd: false)], insideAnd: insideAnd)
        case .orB(let x, let z), .orC(let x, let z), .orD(let x, let z), .orI(let x, let z):
            return disjunction(
                (flattenOr(x) + flattenOr(z)).map { words($0, insideAnd: false) }, insideAnd: insideAnd)
        case .thresh(let k, let subs):
            let keys = subs.compactMap(singleKey)
            let locks = subs.filter(isTimelock)
            if keys.count == subs.count {
                return "\(k) of " + keys.map(keyName).joined(separator: ", ")
            }
            if keys.count == subs.count - 1, locks.count == 1, k >= 2 {
                // A decaying multisig: k keys now, or k-1 keys once the timelock has passed.
                let names = keys.map(keyName).joined(separator: ", ")
                return disjunction(
                    ["\(k) of \(names)", "\(k - 1) of \(names) \(timelock(locks[0]))"], insideAnd: insideAnd)
            }
            if k == subs.count { return conjunction(subs) }
            if k == 1 { return disjunction(subs.map { words($0, insideAnd: false) }, insideAnd: insideAnd) }
            return "\(k) of (" + subs.map { words($0, insideAnd: true) }.joined(separator: ", ") + ")"
        case .alt, .swap, .check, .dupIf, .verify, .nonZero, .zeroNotEqual:
            return ""  // stripped() removed these
        }
    }

    func flattenAnd(_ node: MiniscriptNode) -> [MiniscriptNode] {
        switch stripped(node) {
        case .andV(let x, let y), .andB(let x, let y), .andOr(let x, let y, .zero): flattenAnd(x) + flattenAnd(y)
        default: [node]
        }
    }

    func flattenOr(_ node: MiniscriptNode) -> [MiniscriptNode] {
        switch stripped(node) {
        case .orB(let x, let z), .orC(let x, let z), .orD(let x, let z), .orI(let x, let z):
            flattenOr(x) + flattenOr(z)
        default: [node]
        }
    }
}
