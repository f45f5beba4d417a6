import Bitcoin

/// One miniscript expression (a fragment and its arguments), for `wsh()` (P2WSH context) or a taproot leaf
/// (tapscript context; `Miniscript.context` says which).
///
/// Syntactic sugar is expanded when parsed and restored when printed: `pk(K)` is `c:pk_k(K)`, `pkh(K)` is
/// `c:pk_h(K)`, `and_n(X,Y)` is `andor(X,Y,0)`, `t:X` is `and_v(X,1)`, `l:X` is `or_i(0,X)`, `u:X` is `or_i(X,0)`.
/// - SeeAlso: https://bitcoin.sipa.be/miniscript/ ("Translation table"), BIP379
public indirect enum MiniscriptNode: Sendable {
    /// `0`: OP_0.
    case zero
    /// `1`: OP_1.
    case one
    /// `pk_k(K)`: `<K>`.
    case pkK(DescriptorKey)
    /// `pk_h(K)`: `DUP HASH160 <HASH160(K)> EQUALVERIFY`.
    case pkH(DescriptorKey)
    /// `older(n)`: `<n> CHECKSEQUENCEVERIFY` (relative timelock, BIP68/112).
    case older(UInt32)
    /// `after(n)`: `<n> CHECKLOCKTIMEVERIFY` (absolute timelock, BIP65).
    case after(UInt32)
    /// `sha256(h)`: `SIZE <32> EQUALVERIFY SHA256 <h> EQUAL`.
    case sha256([UInt8])
    /// `hash256(h)`: `SIZE <32> EQUALVERIFY HASH256 <h> EQUAL`.
    case hash256([UInt8])
    /// `ripemd160(h)`: `SIZE <32> EQUALVERIFY RIPEMD160 <h> EQUAL`.
    case ripemd160([UInt8])
    /// `hash160(h)`: `SIZE <32> EQUALVERIFY HASH160 <h> EQUAL`.
    case hash160([UInt8])
    /// `andor(X,Y,Z)`: `[X] NOTIF [Z] ELSE [Y] ENDIF`.
    case andOr(MiniscriptNode, MiniscriptNode, MiniscriptNode)
    /// `and_v(X,Y)`: `[X] [Y]`.
    case andV(MiniscriptNode, MiniscriptNode)
    /// `and_b(X,Y)`: `[X] [Y] BOOLAND`.
    case andB(MiniscriptNode, MiniscriptNode)
    /// `or_b(X,Z)`: `[X] [Z] BOOLOR`.
    case orB(MiniscriptNode, MiniscriptNode)
    /// `or_c(X,Z)`: `[X] NOTIF [Z] ENDIF`.
    case orC(MiniscriptNode, MiniscriptNode)
    /// `or_d(X,Z)`: `[X] IFDUP NOTIF [Z] ENDIF`.
    case orD(MiniscriptNode, MiniscriptNode)
    /// `or_i(X,Z)`: `IF [X] ELSE [Z] ENDIF`.
    case orI(MiniscriptNode, MiniscriptNode)
    /// `thresh(k,X1,…,Xn)`: `[X1] [X2] ADD … [Xn] ADD <k> EQUAL`.
    case thresh(Int, [MiniscriptNode])
    /// `multi(k,K1,…,Kn)`: `<k> <K1> … <Kn> <n> CHECKMULTISIG` (P2WSH only).
    case multi(Int, [DescriptorKey])
    /// `multi_a(k,K1,…,Kn)`: `<K1> CHECKSIG <K2> CHECKSIGADD … <Kn> CHECKSIGADD <k> NUMEQUAL` (tapscript only).
    case multiA(Int, [DescriptorKey])
    /// `a:X`: `TOALTSTACK [X] FROMALTSTACK`.
    case alt(MiniscriptNode)
    /// `s:X`: `SWAP [X]`.
    case swap(MiniscriptNode)
    /// `c:X`: `[X] CHECKSIG`.
    case check(MiniscriptNode)
    /// `d:X`: `DUP IF [X] ENDIF`.
    case dupIf(MiniscriptNode)
    /// `v:X`: `[X] VERIFY`, or the VERIFY form of X's last opcode.
    case verify(MiniscriptNode)
    /// `j:X`: `SIZE 0NOTEQUAL IF [X] ENDIF`.
    case nonZero(MiniscriptNode)
    /// `n:X`: `[X] 0NOTEQUAL`.
    case zeroNotEqual(MiniscriptNode)

    /// The direct subexpressions.
    public var children: [MiniscriptNode] {
        switch self {
        case .zero, .one, .pkK, .pkH, .older, .after, .sha256, .hash256, .ripemd160, .hash160, .multi, .multiA: []
        case .andOr(let x, let y, let z): [x, y, z]
        case .andV(let x, let y), .andB(let x, let y), .orB(let x, let y), .orC(let x, let y), .orD(let x, let y),
            .orI(let x, let y):
            [x, y]
        case .thresh(_, let subs): subs
        case .alt(let x), .swap(let x), .check(let x), .dupIf(let x), .verify(let x), .nonZero(let x),
            .zeroNotEqual(let x):
            [x]
        }
    }

    /// Every key, in order of appearance.
    public var keys: [DescriptorKey] {
        switch self {
        case .pkK(let key), .pkH(let key): [key]
        case .multi(_, let keys), .multiA(_, let keys): keys
        default: children.flatMap(\.keys)
        }
    }

    /// The same tree with every key replaced by `transform(key)`.
    func mapKeys(_ transform: (DescriptorKey) -> DescriptorKey) -> MiniscriptNode {
        switch self {
        case .zero, .one, .older, .after, .sha256, .hash256, .ripemd160, .hash160: self
        case .pkK(let key): .pkK(transform(key))
        case .pkH(let key): .pkH(transform(key))
        case .multi(let k, let keys): .multi(k, keys.map(transform))
        case .multiA(let k, let keys): .multiA(k, keys.map(transform))
        case .andOr(let x, let y, let z): .andOr(x.mapKeys(transform), y.mapKeys(transform), z.mapKeys(transform))
        case .andV(let x, let y): .andV(x.mapKeys(transform), y.mapKeys(transform))
        case .andB(let x, let y): .andB(x.mapKeys(transform), y.mapKeys(transform))
        case .orB(let x, let y): .orB(x.mapKeys(transform), y.mapKeys(transform))
        case .orC(let x, let y): .orC(x.mapKeys(transform), y.mapKeys(transform))
        case .orD(let x, let y): .orD(x.mapKeys(transform), y.mapKeys(transform))
        case .orI(let x, let y): .orI(x.mapKeys(transform), y.mapKeys(transform))
        case .thresh(let k, let subs): .thresh(k, subs.map { $0.mapKeys(transform) })
        case .alt(let x): .alt(x.mapKeys(transform))
        case .swap(let x): .swap(x.mapKeys(transform))
        case .check(let x): .check(x.mapKeys(transform))
        case .dupIf(let x): .dupIf(x.mapKeys(transform))
        case .verify(let x): .verify(x.mapKeys(transform))
        case .nonZero(let x): .nonZero(x.mapKeys(transform))
        case .zeroNotEqual(let x): .zeroNotEqual(x.mapKeys(transform))
        }
    }

    /// Whether this is `0`.
    var isZero: Bool {
        if case .zero = self { return true }
        return false
    }

    /// Whether this is `1`.
    var isOne: Bool {
        if case .one = self { return true }
        return false
    }

    /// The text form, with sugar restored and keys printed by `key`.
    func string(_ key: (DescriptorKey) -> String) -> String {
        let (wrappers, inner) = unwrapped()
        let body: String
        switch inner {
        case .zero: body = "0"
        case .one: body = "1"
        case .pkK(let k): body = "pk_k(\(key(k)))"
        case .pkH(let k): body = "pk_h(\(key(k)))"
        case .older(let n): body = "older(\(n))"
        case .after(let n): body = "after(\(n))"
        case .sha256(let h): body = "sha256(\(h.hexString))"
        case .hash256(let h): body = "hash256(\(h.hexString))"
        case .ripemd160(let h): body = "ripemd160(\(h.hexString))"
        case .hash160(let h): body = "hash160(\(h.hexString))"
        case .andOr(let x, let y, let z):
            body =
                z.isZero
                ? "and_n(\(x.string(key)),\(y.string(key)))"
                : "andor(\(x.string(key)),\(y.string(key)),\(z.string(key)))"
        case .andV(let x, let y): body = "and_v(\(x.string(key)),\(y.string(key)))"
        case .andB(let x, let y): body = "and_b(\(x.string(key)),\(y.string(key)))"
        case .orB(let x, let y): body = "or_b(\(x.string(key)),\(y.string(key)))"
        case .orC(let x, let y): body = "or_c(\(x.string(key)),\(y.string(key)))"
        case .orD(let x, let y): body = "or_d(\(x.string(key)),\(y.string(key)))"
        case .orI(let x, let y): body = "or_i(\(x.string(key)),\(y.string(key)))"
        case .thresh(let k, let subs):
            body = "thresh(" + ([String(k)] + subs.map { $0.string(key) }).joined(separator: ",") + ")"
        case .multi(let k, let keys): body = "multi(" + ([String(k)] + keys.map(key)).joined(separator: ",") + ")"
        case .multiA(let k, let keys):
            body = "multi_a(" + ([String(k)] + keys.map(key)).joined(separator: ",") + ")"
        case .check(.pkK(let k)): body = "pk(\(key(k)))"
        case .check(.pkH(let k)): body = "pkh(\(key(k)))"
        case .alt, .swap, .check, .dupIf, .verify, .nonZero, .zeroNotEqual: body = "?"  // unwrapped() took these
        }
        return wrappers.isEmpty ? body : wrappers + ":" + body
    }

    /// The wrapper letters in front of this node (including the `t:`, `l:`, `u:` sugar) and the node they wrap; `c:`
    /// directly on `pk_k`/`pk_h` stays with the node (printed `pk()`/`pkh()`).
    private func unwrapped() -> (String, MiniscriptNode) {
        let letter: Character
        let inner: MiniscriptNode
        switch self {
        case .alt(let x): (letter, inner) = ("a", x)
        case .swap(let x): (letter, inner) = ("s", x)
        case .check(let x):
            switch x {
            case .pkK, .pkH: return ("", self)
            default: (letter, inner) = ("c", x)
            }
        case .dupIf(let x): (letter, inner) = ("d", x)
        case .verify(let x): (letter, inner) = ("v", x)
        case .nonZero(let x): (letter, inner) = ("j", x)
        case .zeroNotEqual(let x): (letter, inner) = ("n", x)
        case .andV(let x, let y) where y.isOne: (letter, inner) = ("t", x)
        case .orI(let x, let y) where x.isZero: (letter, inner) = ("l", y)
        case .orI(let x, let y) where y.isZero: (letter, inner) = ("u", x)
        default: return ("", self)
        }
        let (more, innermost) = inner.unwrapped()
        return (String(letter) + more, innermost)
    }
}
