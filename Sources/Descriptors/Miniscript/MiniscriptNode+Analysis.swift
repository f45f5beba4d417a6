import Bitcoin

/// A count that is either a number or "no such (dis)satisfaction" (nil); `+` needs both, `|` takes the larger.
typealias MaxCount = Int?

private func plus(_ a: MaxCount, _ b: MaxCount) -> MaxCount {
    guard let a, let b else { return nil }
    return a + b
}

private func either(_ a: MaxCount, _ b: MaxCount) -> MaxCount {
    guard let a else { return b }
    guard let b else { return a }
    return max(a, b)
}

/// How a satisfaction or dissatisfaction script moves the stack (Bitcoin Core's SatInfo): `netdiff` how much higher
/// the stack is at the start than at the end, `exec` how much higher it gets during execution than at the end; nil
/// when no such (dis)satisfaction exists.
struct StackEffect: Sendable, Equatable {
    let netdiff: Int
    let exec: Int

    static let empty = StackEffect(netdiff: 0, exec: 0)
    static let push = StackEffect(netdiff: -1, exec: 0)
    static let hash = StackEffect(netdiff: 0, exec: 0)
    static let nop = StackEffect(netdiff: 0, exec: 0)
    static let ifOp = StackEffect(netdiff: 1, exec: 1)
    static let binaryOp = StackEffect(netdiff: 1, exec: 1)
    static let dup = StackEffect(netdiff: -1, exec: 0)
    static func ifDup(nonzero: Bool) -> StackEffect { StackEffect(netdiff: nonzero ? -1 : 0, exec: 0) }
    static let equalVerify = StackEffect(netdiff: 2, exec: 2)
    static let equal = StackEffect(netdiff: 1, exec: 1)
    static let size = StackEffect(netdiff: -1, exec: 0)
    static let checkSig = StackEffect(netdiff: 1, exec: 1)
    static let zeroNotEqual = StackEffect(netdiff: 0, exec: 0)
    static let verify = StackEffect(netdiff: 1, exec: 1)
}

/// Script concatenation: `a` runs, then `b`.
private func + (a: StackEffect?, b: StackEffect?) -> StackEffect? {
    guard let a, let b else { return nil }
    return StackEffect(netdiff: a.netdiff + b.netdiff, exec: max(b.exec, b.netdiff + a.exec))
}

/// Either script (the worst of both).
private func | (a: StackEffect?, b: StackEffect?) -> StackEffect? {
    guard let a else { return b }
    guard let b else { return a }
    return StackEffect(netdiff: max(a.netdiff, b.netdiff), exec: max(a.exec, b.exec))
}

/// What the type system and the resource model say about one expression.
struct MiniscriptAnalysis: Sendable {
    /// The type; without a base type when the expression is invalid.
    let type: MiniscriptType
    /// Whether this node and all its subexpressions have a valid type.
    let isValid: Bool
    /// Non-push opcodes in the script.
    let opsCount: Int
    /// Opcodes executed in addition (CHECKMULTISIG keys) on the worst satisfaction / dissatisfaction.
    let opsSat: MaxCount
    let opsDsat: MaxCount
    /// Stack elements of the largest satisfaction / dissatisfaction.
    let stackSat: MaxCount
    let stackDsat: MaxCount
    /// The stack movement of the worst satisfaction / dissatisfaction (Bitcoin Core's StackSize).
    let effectSat: StackEffect?
    let effectDsat: StackEffect?
    /// Witness bytes of the largest satisfaction / dissatisfaction (Bitcoin Core's WitnessSize).
    let witnessSat: MaxCount
    let witnessDsat: MaxCount

    /// Stands in for a missing subexpression (never read: each fragment reads only the subexpressions it has).
    static let absent = MiniscriptAnalysis(
        type: [], isValid: false, opsCount: 0, opsSat: nil, opsDsat: nil, stackSat: nil, stackDsat: nil,
        effectSat: nil, effectDsat: nil, witnessSat: nil, witnessDsat: nil)
}

extension MiniscriptNode {
    /// The type and resource counts, computed bottom-up (Bitcoin Core's CalcType, CalcOps and CalcStackSize rules,
    /// as the Miniscript specification states them).
    func analysis(_ context: MiniscriptContext = .p2wsh) -> MiniscriptAnalysis {
        let subs = children.map { $0.analysis(context) }
        let type = Self.type(of: self, subs.map(\.type), context)
        let valid = type.hasBaseType && subs.allSatisfy(\.isValid)
        let (count, opsSat, opsDsat) = ops(subs)
        let (stackSat, stackDsat) = stack(subs)
        let (effectSat, effectDsat) = effect(subs)
        let (witnessSat, witnessDsat) = witness(subs, context)
        return MiniscriptAnalysis(
            type: type, isValid: valid, opsCount: count, opsSat: opsSat, opsDsat: opsDsat, stackSat: stackSat,
            stackDsat: stackDsat, effectSat: effectSat, effectDsat: effectDsat, witnessSat: witnessSat,
            witnessDsat: witnessDsat)
    }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private static func type(of node: MiniscriptNode, _ types: [MiniscriptType], _ context: MiniscriptContext)
        -> MiniscriptType
    {
        typealias T = MiniscriptType
        let x = types.first ?? []
        let y = types.count > 1 ? types[1] : []
        let timelocks = T("ghijk")
        switch node {
        case .zero: return T("Bzudemsxk")
        case .one: return T("Bzufmxk")
        case .pkK: return T("Konudemsxk")
        case .pkH: return T("Knudemsxk")
        case .older(let n): return T(n & (1 << 22) != 0 ? "g" : "h").union(T("Bzfmxk"))
        case .after(let n): return T(n >= 500_000_000 ? "i" : "j").union(T("Bzfmxk"))
        case .sha256, .hash256, .ripemd160, .hash160: return T("Bonudmk")
        case .multi: return context == .p2wsh ? T("Bnudemsk") : []
        case .multiA: return context == .tapscript ? T("Budemsk") : []
        case .alt:
            return T("W").if(x.isSuperset(of: T("B"))).union(x.intersection(timelocks))
                .union(x.intersection(T("udfems"))).union(T("x"))
        case .swap:
            return T("W").if(x.isSuperset(of: T("Bo"))).union(x.intersection(timelocks))
                .union(x.intersection(T("udfemsx")))
        case .check:
            return T("B").if(x.contains(.key)).union(x.intersection(timelocks)).union(x.intersection(T("ondfem")))
                .union(T("us"))
        case .dupIf:
            // `d:` is u under tapscript, where MINIMALIF is consensus (OP_IF takes only empty or 1); under P2WSH it
            // is only policy, so not u there.
            return T("B").if(x.isSuperset(of: T("Vz"))).union(T("o").if(x.contains(.z)))
                .union(T("e").if(x.contains(.f))).union(x.intersection(timelocks)).union(x.intersection(T("ms")))
                .union(T("u").if(context == .tapscript)).union(T("ndx"))
        case .verify:
            return T("V").if(x.contains(.base)).union(x.intersection(timelocks)).union(x.intersection(T("zonms")))
                .union(T("fx"))
        case .nonZero:
            return T("B").if(x.isSuperset(of: T("Bn"))).union(T("e").if(x.contains(.f)))
                .union(x.intersection(timelocks)).union(x.intersection(T("oums"))).union(T("ndx"))
        case .zeroNotEqual:
            return x.intersection(timelocks).union(x.intersection(T("Bzondfems"))).union(T("ux"))
        case .andV:
            let either = x.union(y)
            return y.intersection(T("KVB")).if(x.contains(.verify))
                .union(x.intersection(T("n"))).union(y.intersection(T("n")).if(x.contains(.z)))
                .union(either.intersection(T("o")).if(either.contains(.z)))
                .union(x.intersection(y).intersection(T("dmz")))
                .union(either.intersection(T("s")))
                .union(T("f").if(y.contains(.f) || x.contains(.s)))
                .union(y.intersection(T("ux")))
                .union(either.intersection(T("ghij")))
                .union(T("k").if(x.intersection(y).contains(.k) && !T.mixes(x, y)))
        case .andB:
            let either = x.union(y)
            let both = x.intersection(y)
            return x.intersection(T("B")).if(y.contains(.wrapped))
                .union(either.intersection(T("o")).if(either.contains(.z)))
                .union(x.intersection(T("n"))).union(y.intersection(T("n")).if(x.contains(.z)))
                .union(both.intersection(T("e")).if(both.contains(.s)))
                .union(both.intersection(T("dzm")))
                .union(T("f").if(both.contains(.f) || x.isSuperset(of: T("sf")) || y.isSuperset(of: T("sf"))))
                .union(either.intersection(T("s")))
                .union(T("ux"))
                .union(either.intersection(T("ghij")))
                .union(T("k").if(both.contains(.k) && !T.mixes(x, y)))
        case .orB:
            let either = x.union(y)
            let both = x.intersection(y)
            return T("B").if(x.isSuperset(of: T("Bd")) && y.isSuperset(of: T("Wd")))
                .union(either.intersection(T("o")).if(either.contains(.z)))
                .union(both.intersection(T("m")).if(either.contains(.s) && both.contains(.e)))
                .union(both.intersection(T("zse")))
                .union(T("dux"))
                .union(either.intersection(T("ghij")))
                .union(both.intersection(T("k")))
        case .orD:
            let either = x.union(y)
            let both = x.intersection(y)
            return y.intersection(T("B")).if(x.isSuperset(of: T("Bdu")))
                .union(x.intersection(T("o")).if(y.contains(.z)))
                .union(both.intersection(T("m")).if(x.contains(.e) && either.contains(.s)))
                .union(both.intersection(T("zs")))
                .union(y.intersection(T("ufde")))
                .union(T("x"))
                .union(either.intersection(T("ghij")))
                .union(both.intersection(T("k")))
        case .orC:
            let either = x.union(y)
            let both = x.intersection(y)
            return y.intersection(T("V")).if(x.isSuperset(of: T("Bdu")))
                .union(x.intersection(T("o")).if(y.contains(.z)))
                .union(both.intersection(T("m")).if(x.contains(.e) && either.contains(.s)))
                .union(both.intersection(T("zs")))
                .union(T("fx"))
                .union(either.intersection(T("ghij")))
                .union(both.intersection(T("k")))
        case .orI:
            let either = x.union(y)
            let both = x.intersection(y)
            return both.intersection(T("VBKufs"))
                .union(T("o").if(both.contains(.z)))
                .union(either.intersection(T("e")).if(either.contains(.f)))
                .union(both.intersection(T("m")).if(either.contains(.s)))
                .union(either.intersection(T("d")))
                .union(T("x"))
                .union(either.intersection(T("ghij")))
                .union(both.intersection(T("k")))
        case .andOr:
            let z = types[2]
            let yz = y.intersection(z)
            let xyz = x.intersection(yz)
            let oSide = x.union(yz)
            return yz.intersection(T("BKV")).if(x.isSuperset(of: T("Bdu")))
                .union(xyz.intersection(T("z")))
                .union(oSide.intersection(T("o")).if(oSide.contains(.z)))
                .union(yz.intersection(T("u")))
                .union(z.intersection(T("f")).if(x.contains(.s) || y.contains(.f)))
                .union(z.intersection(T("d")))
                .union(z.intersection(T("e")).if(x.contains(.s) || y.contains(.f)))
                .union(xyz.intersection(T("m")).if(x.contains(.e) && x.union(y).union(z).contains(.s)))
                .union(z.intersection(x.union(y)).intersection(T("s")))
                .union(T("x"))
                .union(x.union(y).union(z).intersection(T("ghij")))
                .union(T("k").if(xyz.contains(.k) && !T.mixes(x, y)))
        case .thresh(let k, _):
            var allE = true
            var allM = true
            var args = 0
            var numS = 0
            var accumulated = T("k")
            for (index, t) in types.enumerated() {
                guard t.isSuperset(of: T(index == 0 ? "Bdu" : "Wdu")) else { return [] }
                if !t.contains(.e) { allE = false }
                if !t.contains(.m) { allM = false }
                if t.contains(.s) { numS += 1 }
                args += t.contains(.z) ? 0 : t.contains(.o) ? 1 : 2
                let noMix = accumulated.intersection(t).contains(.k) && (k <= 1 || !T.mixes(accumulated, t))
                accumulated = accumulated.union(t).intersection(T("ghij")).union(T("k").if(noMix))
            }
            let n = types.count
            return T("Bdu").union(T("z").if(args == 0)).union(T("o").if(args == 1))
                .union(T("e").if(allE && numS == n))
                .union(T("m").if(allE && allM && numS >= n - k))
                .union(T("s").if(numS >= n - k + 1))
                .union(accumulated)
        }
    }

    private func ops(_ subs: [MiniscriptAnalysis]) -> (Int, MaxCount, MaxCount) {
        let x = subs.first ?? .absent
        let y = subs.count > 1 ? subs[1] : .absent
        switch self {
        case .one: return (0, 0, nil)
        case .zero: return (0, nil, 0)
        case .pkK: return (0, 0, 0)
        case .pkH: return (3, 0, 0)
        case .older, .after: return (1, 0, nil)
        case .sha256, .hash256, .ripemd160, .hash160: return (4, 0, nil)
        case .andV: return (x.opsCount + y.opsCount, plus(x.opsSat, y.opsSat), nil)
        case .andB:
            return (1 + x.opsCount + y.opsCount, plus(x.opsSat, y.opsSat), plus(x.opsDsat, y.opsDsat))
        case .orB:
            return (
                1 + x.opsCount + y.opsCount,
                either(plus(x.opsSat, y.opsDsat), plus(y.opsSat, x.opsDsat)), plus(x.opsDsat, y.opsDsat)
            )
        case .orD:
            return (
                3 + x.opsCount + y.opsCount, either(x.opsSat, plus(y.opsSat, x.opsDsat)),
                plus(x.opsDsat, y.opsDsat)
            )
        case .orC: return (2 + x.opsCount + y.opsCount, either(x.opsSat, plus(y.opsSat, x.opsDsat)), nil)
        case .orI:
            return (3 + x.opsCount + y.opsCount, either(x.opsSat, y.opsSat), either(x.opsDsat, y.opsDsat))
        case .andOr:
            let z = subs[2]
            return (
                3 + x.opsCount + y.opsCount + z.opsCount,
                either(plus(y.opsSat, x.opsSat), plus(x.opsDsat, z.opsSat)), plus(x.opsDsat, z.opsDsat)
            )
        case .multi(_, let keys): return (1, keys.count, keys.count)
        case .multiA(_, let keys): return (keys.count + 1, 0, 0)
        case .swap, .check, .zeroNotEqual: return (1 + x.opsCount, x.opsSat, x.opsDsat)
        case .alt: return (2 + x.opsCount, x.opsSat, x.opsDsat)
        case .dupIf: return (3 + x.opsCount, x.opsSat, 0)
        case .nonZero: return (4 + x.opsCount, x.opsSat, 0)
        case .verify: return (x.opsCount + (x.type.contains(.x) ? 1 : 0), x.opsSat, nil)
        case .thresh(let k, _):
            var count = 0
            var sats: [MaxCount] = [0]
            for sub in subs {
                count += sub.opsCount + 1
                var next: [MaxCount] = [plus(sats[0], sub.opsDsat)]
                for j in 1..<sats.count {
                    next.append(either(plus(sats[j], sub.opsDsat), plus(sats[j - 1], sub.opsSat)))
                }
                next.append(plus(sats[sats.count - 1], sub.opsSat))
                sats = next
            }
            return (count, k < sats.count ? sats[k] : nil, sats[0])
        }
    }

    private func stack(_ subs: [MiniscriptAnalysis]) -> (MaxCount, MaxCount) {
        let x = subs.first ?? .absent
        let y = subs.count > 1 ? subs[1] : .absent
        switch self {
        case .zero: return (nil, 0)
        case .one, .older, .after: return (0, nil)
        case .pkK: return (1, 1)
        case .pkH: return (2, 2)
        case .sha256, .hash256, .ripemd160, .hash160: return (1, nil)
        case .andOr:
            let z = subs[2]
            return (
                either(plus(x.stackSat, y.stackSat), plus(x.stackDsat, z.stackSat)), plus(x.stackDsat, z.stackDsat)
            )
        case .andV: return (plus(x.stackSat, y.stackSat), nil)
        case .andB: return (plus(x.stackSat, y.stackSat), plus(x.stackDsat, y.stackDsat))
        case .orB:
            return (
                either(plus(x.stackDsat, y.stackSat), plus(x.stackSat, y.stackDsat)),
                plus(x.stackDsat, y.stackDsat)
            )
        case .orC: return (either(x.stackSat, plus(x.stackDsat, y.stackSat)), nil)
        case .orD:
            return (either(x.stackSat, plus(x.stackDsat, y.stackSat)), plus(x.stackDsat, y.stackDsat))
        case .orI:
            return (
                either(plus(x.stackSat, 1), plus(y.stackSat, 1)), either(plus(x.stackDsat, 1), plus(y.stackDsat, 1))
            )
        case .multi(let k, _): return (k + 1, k + 1)
        case .multiA(_, let keys): return (keys.count, keys.count)
        case .alt, .zeroNotEqual, .swap, .check: return (x.stackSat, x.stackDsat)
        case .dupIf: return (plus(1, x.stackSat), 1)
        case .verify: return (x.stackSat, nil)
        case .nonZero: return (x.stackSat, 1)
        case .thresh(let k, _):
            var sats: [MaxCount] = [0]
            for sub in subs {
                var next: [MaxCount] = [plus(sats[0], sub.stackDsat)]
                for j in 1..<sats.count {
                    next.append(either(plus(sats[j], sub.stackDsat), plus(sats[j - 1], sub.stackSat)))
                }
                next.append(plus(sats[sats.count - 1], sub.stackSat))
                sats = next
            }
            return (k < sats.count ? sats[k] : nil, sats[0])
        }
    }
}

extension MiniscriptNode {
    /// The stack movement of satisfaction and dissatisfaction (Bitcoin Core's CalcStackSize).
    // swiftlint:disable:next cyclomatic_complexity function_body_length
    fileprivate func effect(_ subs: [MiniscriptAnalysis]) -> (StackEffect?, StackEffect?) {
        typealias E = StackEffect
        let x = subs.first ?? .absent
        let y = subs.count > 1 ? subs[1] : .absent
        switch self {
        case .zero: return (nil, E.push)
        case .one: return (E.push, nil)
        case .older, .after: return (E.push + E.nop, nil)
        case .pkK: return (E.push, E.push)
        case .pkH:
            let both = E.dup + E.hash + E.push + E.equalVerify
            return (both, both)
        case .sha256, .hash256, .ripemd160, .hash160:
            return (E.size + E.push + E.equalVerify + E.hash + E.push + E.equal, nil)
        case .andOr:
            let z = subs[2]
            return (
                (x.effectSat + E.ifOp + y.effectSat) | (x.effectDsat + E.ifOp + z.effectSat),
                x.effectDsat + E.ifOp + z.effectDsat
            )
        case .andV: return (x.effectSat + y.effectSat, nil)
        case .andB:
            return (x.effectSat + y.effectSat + E.binaryOp, x.effectDsat + y.effectDsat + E.binaryOp)
        case .orB:
            return (
                ((x.effectSat + y.effectDsat) | (x.effectDsat + y.effectSat)) + E.binaryOp,
                x.effectDsat + y.effectDsat + E.binaryOp
            )
        case .orC: return ((x.effectSat + E.ifOp) | (x.effectDsat + E.ifOp + y.effectSat), nil)
        case .orD:
            return (
                (x.effectSat + E.ifDup(nonzero: true) + E.ifOp)
                    | (x.effectDsat + E.ifDup(nonzero: false) + E.ifOp + y.effectSat),
                x.effectDsat + E.ifDup(nonzero: false) + E.ifOp + y.effectDsat
            )
        case .orI: return (E.ifOp + (x.effectSat | y.effectSat), E.ifOp + (x.effectDsat | y.effectDsat))
        case .multi(let k, let keys):
            let both = E(netdiff: k, exec: k + keys.count + 2)
            return (both, both)
        case .multiA(_, let keys):
            let both = E(netdiff: keys.count - 1, exec: keys.count)
            return (both, both)
        case .alt, .zeroNotEqual, .swap: return (x.effectSat, x.effectDsat)
        case .check: return (x.effectSat + E.checkSig, x.effectDsat + E.checkSig)
        case .dupIf: return (E.dup + E.ifOp + x.effectSat, E.dup + E.ifOp)
        case .verify: return (x.effectSat + E.verify, nil)
        case .nonZero:
            return (E.size + E.zeroNotEqual + E.ifOp + x.effectSat, E.size + E.zeroNotEqual + E.ifOp)
        case .thresh(let k, _):
            var sats: [StackEffect?] = [E.empty]
            for (i, sub) in subs.enumerated() {
                let add = i > 0 ? E.binaryOp : E.empty
                var next: [StackEffect?] = [sats[0] + sub.effectDsat + add]
                for j in 1..<sats.count {
                    next.append(((sats[j] + sub.effectDsat) | (sats[j - 1] + sub.effectSat)) + add)
                }
                next.append(sats[sats.count - 1] + sub.effectSat + add)
                sats = next
            }
            let sat: StackEffect? = k < sats.count ? sats[k] : nil
            return (sat + E.push + E.equal, sats[0] + E.push + E.equal)
        }
    }

    /// Witness bytes of the largest satisfaction and dissatisfaction (Bitcoin Core's CalcWitnessSize): a signature
    /// counts 1 + 72 under P2WSH and 1 + 65 under tapscript, a public key 1 + 33 or 1 + 32.
    // swiftlint:disable:next cyclomatic_complexity
    fileprivate func witness(_ subs: [MiniscriptAnalysis], _ context: MiniscriptContext) -> (MaxCount, MaxCount) {
        let sigSize = context == .tapscript ? 1 + 65 : 1 + 72
        let keySize = context == .tapscript ? 1 + 32 : 1 + 33
        let x = subs.first ?? .absent
        let y = subs.count > 1 ? subs[1] : .absent
        switch self {
        case .zero: return (nil, 0)
        case .one, .older, .after: return (0, nil)
        case .pkK: return (sigSize, 1)
        case .pkH: return (sigSize + keySize, 1 + keySize)
        case .sha256, .hash256, .ripemd160, .hash160: return (1 + 32, nil)
        case .andOr:
            let z = subs[2]
            return (
                either(plus(x.witnessSat, y.witnessSat), plus(x.witnessDsat, z.witnessSat)),
                plus(x.witnessDsat, z.witnessDsat)
            )
        case .andV: return (plus(x.witnessSat, y.witnessSat), nil)
        case .andB: return (plus(x.witnessSat, y.witnessSat), plus(x.witnessDsat, y.witnessDsat))
        case .orB:
            return (
                either(plus(x.witnessDsat, y.witnessSat), plus(x.witnessSat, y.witnessDsat)),
                plus(x.witnessDsat, y.witnessDsat)
            )
        case .orC: return (either(x.witnessSat, plus(x.witnessDsat, y.witnessSat)), nil)
        case .orD:
            return (either(x.witnessSat, plus(x.witnessDsat, y.witnessSat)), plus(x.witnessDsat, y.witnessDsat))
        case .orI:
            return (
                either(plus(x.witnessSat, 2), plus(y.witnessSat, 1)),
                either(plus(x.witnessDsat, 2), plus(y.witnessDsat, 1))
            )
        case .multi(let k, _): return (k * sigSize + 1, k + 1)
        case .multiA(let k, let keys): return (k * sigSize + keys.count - k, keys.count)
        case .alt, .zeroNotEqual, .swap, .check: return (x.witnessSat, x.witnessDsat)
        case .dupIf: return (plus(2, x.witnessSat), 1)
        case .verify: return (x.witnessSat, nil)
        case .nonZero: return (x.witnessSat, 1)
        case .thresh(let k, _):
            var sats: [MaxCount] = [0]
            for sub in subs {
                var next: [MaxCount] = [plus(sats[0], sub.witnessDsat)]
                for j in 1..<sats.count {
                    next.append(either(plus(sats[j], sub.witnessDsat), plus(sats[j - 1], sub.witnessSat)))
                }
                next.append(plus(sats[sats.count - 1], sub.witnessSat))
                sats = next
            }
            return (k < sats.count ? sats[k] : nil, sats[0])
        }
    }
}
