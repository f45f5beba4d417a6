import Bitcoin
import BitcoinCrypto

/// A witness for a miniscript spend and what it relies on.
public struct MiniscriptSatisfaction: Sendable, Equatable {
    /// The witness stack items, bottom first, without the witness script (append it for P2WSH: `witness(script:)`).
    public let stack: [[UInt8]]
    /// The largest `older()` value the chosen path relies on: the input's nSequence must meet it (BIP68), with a
    /// transaction version of at least 2.
    public let relativeTimelock: UInt32?
    /// The largest `after()` value the chosen path relies on: the transaction's nLockTime must meet it (BIP65), and the
    /// input's nSequence must not be 0xffffffff.
    public let absoluteTimelock: UInt32?
    /// The public keys whose signatures the witness uses (33 bytes under P2WSH, 32-byte x-only under tapscript), in
    /// the order the satisfaction met them.
    public let signingKeys: [[UInt8]]

    /// The full P2WSH witness: the stack items, then the witness script.
    public func witness(script: Script) -> [[UInt8]] { stack + [script.bytes] }

    /// The full tapscript (script path) witness: the stack items, the leaf script, then the control block (BIP341).
    public func witness(script: Script, controlBlock: [UInt8]) -> [[UInt8]] {
        stack + [script.bytes, controlBlock]
    }
}

/// What a miniscript satisfier can draw on: signatures by public key, and the spending transaction's lock fields.
public struct MiniscriptSatisfier: Sendable {
    /// Signature by public key: under P2WSH a DER signature with its sighash byte by 33-byte compressed key, under
    /// tapscript a BIP340 signature (64 bytes, or 65 with a sighash byte) by 32-byte x-only key.
    public var signatures: [[UInt8]: [UInt8]]
    /// The spending input's nSequence.
    public var sequence: UInt32
    /// The spending transaction's nLockTime.
    public var lockTime: UInt32
    /// Whether every timelock counts as met whatever `sequence`/`lockTime` say (for planning).
    var anyTimelock = false

    /// A satisfier with these signatures and lock fields.
    public init(signatures: [[UInt8]: [UInt8]], sequence: UInt32 = 0xFFFF_FFFD, lockTime: UInt32 = 0) {
        self.signatures = signatures
        self.sequence = sequence
        self.lockTime = lockTime
    }

    /// Whether nSequence meets `older(n)` (BIP68/BIP112): the disable flag clear, the same unit (blocks or 512
    /// seconds), and at least the value.
    public func meetsRelative(_ n: UInt32) -> Bool {
        if anyTimelock { return true }
        let disable: UInt32 = 1 << 31
        let typeFlag: UInt32 = 1 << 22
        let mask: UInt32 = 0x0000_FFFF
        guard sequence & disable == 0 else { return false }
        guard (sequence & typeFlag) == (n & typeFlag) else { return false }
        return sequence & mask >= n & mask
    }

    /// Whether nLockTime meets `after(n)` (BIP65): the same unit (height below 500,000,000, else time), at least
    /// the value, and the input not final (nSequence below 0xffffffff).
    public func meetsAbsolute(_ n: UInt32) -> Bool {
        if anyTimelock { return true }
        let threshold: UInt32 = 500_000_000
        guard (lockTime < threshold) == (n < threshold) else { return false }
        return lockTime >= n && sequence != 0xFFFF_FFFF
    }
}

/// A candidate (dis)satisfaction while searching (the InputStack of Bitcoin Core's satisfier).
private struct Candidate {
    var available: Bool
    var hasSig = false
    var malleable = false
    var nonCanonical = false
    var size = 0
    var stack: [[UInt8]] = []
    var older: UInt32?
    var after: UInt32?
    var keys: [[UInt8]] = []

    static let empty = Candidate(available: true)
    static let invalid = Candidate(available: false)
    static let zero = Candidate(element: [])
    static let one = Candidate(element: [1])
    static let zero32: Candidate = {
        var c = Candidate(element: [UInt8](repeating: 0, count: 32))
        c.malleable = true
        return c
    }()

    init(available: Bool) { self.available = available }

    init(element: [UInt8]) {
        available = true
        stack = [element]
        size = element.count + 1
    }

    func setting(_ change: (inout Candidate) -> Void) -> Candidate {
        var copy = self
        change(&copy)
        return copy
    }

    var nonCanon: Candidate { setting { $0.nonCanonical = true } }
    var malleated: Candidate { setting { $0.malleable = true } }

    /// `a + b`: b's items above a's (b runs first in the script).
    static func + (a: Candidate, b: Candidate) -> Candidate {
        guard a.available, b.available else { return .invalid }
        var out = a
        out.stack += b.stack
        out.size += b.size
        out.hasSig = a.hasSig || b.hasSig
        out.malleable = a.malleable || b.malleable
        out.nonCanonical = a.nonCanonical || b.nonCanonical
        out.older = [a.older, b.older].compactMap { $0 }.max()
        out.after = [a.after, b.after].compactMap { $0 }.max()
        out.keys = a.keys + b.keys
        return out
    }

    /// `a | b`: the better choice (Bitcoin Core's rules: avoid needing a signature a third party could leave out,
    /// prefer the non-malleable one, then the smaller).
    static func | (a: Candidate, b: Candidate) -> Candidate {
        guard a.available else { return b }
        guard b.available else { return a }
        var a = a
        var b = b
        if !a.hasSig && b.hasSig { return a }
        if !b.hasSig && a.hasSig { return b }
        if !a.hasSig && !b.hasSig {
            a.malleable = true
            b.malleable = true
        } else {
            if b.malleable && !a.malleable { return a }
            if a.malleable && !b.malleable { return b }
        }
        return a.size <= b.size ? a : b
    }
}

extension Miniscript {
    /// The cheapest non-malleable satisfaction at child `index` of branch `path` with what `satisfier` offers,
    /// or nil when there is none (a missing signature, an unmet timelock, or only malleable ones).
    ///
    /// Dissatisfactions of the branches not taken are included as the script needs them.
    /// - Throws: `DescriptorError` when a key cannot be derived.
    public func satisfy(at index: UInt32 = 0, path: Int = 0, with satisfier: MiniscriptSatisfier)
        throws(DescriptorError) -> MiniscriptSatisfaction?
    {
        let tapscript = context == .tapscript
        let result = try node.produce(satisfier) { (key) throws(DescriptorError) in
            try Descriptor.keyBytes(key, index: index, path: path, tapscript: tapscript)
        }
        let sat = result.sat
        guard sat.available, !sat.malleable, sat.hasSig else { return nil }
        return MiniscriptSatisfaction(
            stack: sat.stack, relativeTimelock: sat.older, absoluteTimelock: sat.after, signingKeys: sat.keys)
    }

    /// The spending path the holders of `keys` would take if every timelock were met.
    ///
    /// `keys` are public keys at `index`/`path` (33 bytes under P2WSH, 32-byte x-only under tapscript). The result
    /// names the path's timelocks (what nSequence / nLockTime must be set to) and the keys that sign; nil when those
    /// keys cannot spend at all. Its stack holds placeholders for the signatures (72 bytes, or 64 under tapscript).
    ///
    /// - Throws: `DescriptorError` when a key cannot be derived.
    public func plan(at index: UInt32 = 0, path: Int = 0, keys: Set<[UInt8]>) throws(DescriptorError)
        -> MiniscriptSatisfaction?
    {
        var signatures: [[UInt8]: [UInt8]] = [:]
        let size = context == .tapscript ? 64 : 72
        for key in keys { signatures[key] = [UInt8](repeating: 0, count: size) }
        var satisfier = MiniscriptSatisfier(signatures: signatures)
        satisfier.anyTimelock = true
        return try satisfy(at: index, path: path, with: satisfier)
    }
}

extension MiniscriptNode {
    fileprivate func produce(
        _ ctx: MiniscriptSatisfier, _ keyBytes: (DescriptorKey) throws(DescriptorError) -> [UInt8]
    ) throws(DescriptorError) -> (nsat: Candidate, sat: Candidate) {
        func sign(_ key: DescriptorKey) throws(DescriptorError) -> Candidate {
            let bytes = try keyBytes(key)
            guard let signature = ctx.signatures[bytes] else { return .invalid }
            return Candidate(element: signature).setting {
                $0.hasSig = true
                $0.keys = [bytes]
            }
        }
        func sub(_ node: MiniscriptNode) throws(DescriptorError) -> (nsat: Candidate, sat: Candidate) {
            try node.produce(ctx, keyBytes)
        }
        switch self {
        case .zero: return (.empty, .invalid)
        case .one: return (.invalid, .empty)
        case .pkK(let key): return (.zero, try sign(key))
        case .pkH(let key):
            let bytes = Candidate(element: try keyBytes(key))
            return (.zero + bytes, try sign(key) + bytes)
        case .older(let n):
            return (.invalid, ctx.meetsRelative(n) ? Candidate.empty.setting { $0.older = n } : .invalid)
        case .after(let n):
            return (.invalid, ctx.meetsAbsolute(n) ? Candidate.empty.setting { $0.after = n } : .invalid)
        case .sha256, .hash256, .ripemd160, .hash160:
            // Preimages are not offered: such a branch can only be dissatisfied.
            return (.zero32, .invalid)
        case .multi(let k, let keys):
            var sats: [Candidate] = [.zero]
            for key in keys {
                let sat = try sign(key)
                var next: [Candidate] = [sats[0]]
                for j in 1..<sats.count { next.append(sats[j] | (sats[j - 1] + sat)) }
                next.append(sats[sats.count - 1] + sat)
                sats = next
            }
            var nsat = Candidate.zero
            for _ in 0..<k { nsat = nsat + .zero }
            return (nsat, sats[k])
        case .multiA(let k, let keys):
            // The first key's signature is on top of the stack: go through the keys from the last; an empty
            // element for each key that does not sign.
            var sats: [Candidate] = [.empty]
            for key in keys.reversed() {
                let sat = try sign(key)
                var next: [Candidate] = [sats[0] + .zero]
                for j in 1..<sats.count { next.append((sats[j] + .zero) | (sats[j - 1] + sat)) }
                next.append(sats[sats.count - 1] + sat)
                sats = next
            }
            return (sats[0], sats[k])
        case .thresh(let k, let subs):
            var results: [(nsat: Candidate, sat: Candidate)] = []
            for node in subs { results.append(try sub(node)) }
            var sats: [Candidate] = [.empty]
            for result in results.reversed() {
                var next: [Candidate] = [sats[0] + result.nsat]
                for j in 1..<sats.count { next.append((sats[j] + result.nsat) | (sats[j - 1] + result.sat)) }
                next.append(sats[sats.count - 1] + result.sat)
                sats = next
            }
            var nsat = Candidate.invalid
            for i in sats.indices where i != k {
                let candidate = i == 0 ? sats[i] : sats[i].malleated.nonCanon
                nsat = nsat | candidate
            }
            return (nsat, sats[k])
        case .andV(let x, let y):
            let (xr, yr) = (try sub(x), try sub(y))
            return ((yr.nsat + xr.sat).nonCanon, yr.sat + xr.sat)
        case .andB(let x, let y):
            let (xr, yr) = (try sub(x), try sub(y))
            let nsat =
                (yr.nsat + xr.nsat) | (yr.sat + xr.nsat).malleated.nonCanon | (yr.nsat + xr.sat).malleated.nonCanon
            return (nsat, yr.sat + xr.sat)
        case .orB(let x, let z):
            let (xr, zr) = (try sub(x), try sub(z))
            let sat = (zr.nsat + xr.sat) | (zr.sat + xr.nsat) | (zr.sat + xr.sat).malleated.nonCanon
            return (zr.nsat + xr.nsat, sat)
        case .orC(let x, let z):
            let (xr, zr) = (try sub(x), try sub(z))
            return (.invalid, xr.sat | (zr.sat + xr.nsat))
        case .orD(let x, let z):
            let (xr, zr) = (try sub(x), try sub(z))
            return (zr.nsat + xr.nsat, xr.sat | (zr.sat + xr.nsat))
        case .orI(let x, let z):
            let (xr, zr) = (try sub(x), try sub(z))
            return ((xr.nsat + .one) | (zr.nsat + .zero), (xr.sat + .one) | (zr.sat + .zero))
        case .andOr(let x, let y, let z):
            let (xr, yr, zr) = (try sub(x), try sub(y), try sub(z))
            return ((yr.nsat + xr.sat).nonCanon | (zr.nsat + xr.nsat), (yr.sat + xr.sat) | (zr.sat + xr.nsat))
        case .alt(let x), .swap(let x), .check(let x), .zeroNotEqual(let x):
            return try sub(x)
        case .dupIf(let x):
            return (.zero, try sub(x).sat + .one)
        case .nonZero(let x):
            let xr = try sub(x)
            let nsat = Candidate.zero.setting { $0.malleable = xr.nsat.available && !xr.nsat.hasSig }
            return (nsat, xr.sat)
        case .verify(let x):
            return (.invalid, try sub(x).sat)
        }
    }
}
