import Bitcoin

/// The type of a miniscript expression: one base type (B, V, K or W) and the properties the Miniscript type system
/// derives for it.
///
/// Base types: **B** pushes nonzero on satisfaction and exact 0 on dissatisfaction; **V** continues or aborts, pushing
/// nothing; **K** pushes a public key for a signature check; **W** works on the element below the top (wrapped B).
/// Properties: **z** consumes no stack element, **o** exactly one, **n** its top input is nonzero, **d** has a
/// dissatisfaction without a signature, **u** pushes exactly 1 on satisfaction; **e**, **f**, **s**, **m** are the
/// malleability properties (unique dissatisfaction, no dissatisfaction without a signature, every satisfaction needs a
/// signature, non-malleable satisfaction); **x** the last opcode is not a VERIFY-able one; **g**/**h** a relative
/// time/height lock, **i**/**j** an absolute time/height lock, **k** no mix of time and height locks in one path.
/// - SeeAlso: https://bitcoin.sipa.be/miniscript/ ("Type system"), BIP379
public struct MiniscriptType: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// B: pushes nonzero on satisfaction, exact 0 on dissatisfaction.
    public static let base = MiniscriptType(rawValue: 1 << 0)
    /// V: continues or aborts, pushing nothing.
    public static let verify = MiniscriptType(rawValue: 1 << 1)
    /// K: pushes a public key for a signature check.
    public static let key = MiniscriptType(rawValue: 1 << 2)
    /// W: works on the element below the top.
    public static let wrapped = MiniscriptType(rawValue: 1 << 3)
    public static let z = MiniscriptType(rawValue: 1 << 4)
    public static let o = MiniscriptType(rawValue: 1 << 5)
    public static let n = MiniscriptType(rawValue: 1 << 6)
    public static let d = MiniscriptType(rawValue: 1 << 7)
    public static let u = MiniscriptType(rawValue: 1 << 8)
    public static let e = MiniscriptType(rawValue: 1 << 9)
    public static let f = MiniscriptType(rawValue: 1 << 10)
    public static let s = MiniscriptType(rawValue: 1 << 11)
    public static let m = MiniscriptType(rawValue: 1 << 12)
    public static let x = MiniscriptType(rawValue: 1 << 13)
    public static let g = MiniscriptType(rawValue: 1 << 14)
    public static let h = MiniscriptType(rawValue: 1 << 15)
    public static let i = MiniscriptType(rawValue: 1 << 16)
    public static let j = MiniscriptType(rawValue: 1 << 17)
    public static let k = MiniscriptType(rawValue: 1 << 18)

    private static let letters: [(Character, MiniscriptType)] = [
        ("B", .base), ("V", .verify), ("K", .key), ("W", .wrapped), ("z", .z), ("o", .o), ("n", .n), ("d", .d),
        ("u", .u), ("e", .e),
        ("f", .f), ("s", .s), ("m", .m), ("x", .x), ("g", .g), ("h", .h), ("i", .i), ("j", .j), ("k", .k),
    ]

    /// The type with the properties named by `letters`, such as `"Bdu"`.
    public init(_ letters: String) {
        var value = MiniscriptType()
        for char in letters {
            if let entry = Self.letters.first(where: { $0.0 == char }) { value.insert(entry.1) }
        }
        self = value
    }

    /// The base types and properties as letters, in the order B V K W z o n d u e f s m x g h i j k.
    public var description: String { String(Self.letters.filter { contains($0.1) }.map(\.0)) }

    /// Whether exactly one base type is present (a valid expression).
    public var hasBaseType: Bool { !intersection([.base, .verify, .key, .wrapped]).isEmpty }

    /// `self` when `condition` holds, else no properties.
    func `if`(_ condition: Bool) -> MiniscriptType { condition ? self : [] }

    /// Whether two timelock summaries mix a time and a height lock of the same kind (g with h, i with j).
    static func mixes(_ a: MiniscriptType, _ b: MiniscriptType) -> Bool {
        (a.contains(.g) && b.contains(.h)) || (a.contains(.h) && b.contains(.g))
            || (a.contains(.i) && b.contains(.j)) || (a.contains(.j) && b.contains(.i))
    }
}
