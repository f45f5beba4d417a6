/// A BIP32 derivation path: a list of child numbers, written `m/84h/0h/0h/0/5`.
///
/// Parsing accepts `h`, `H` and `'` as hardened markers and an optional leading `m`; the description always uses `h`.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#the-key-tree
public struct DerivationPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// The largest number of levels a path may have: BIP32 depth is one byte.
    public static let maxDepth = 255

    /// The child numbers, from the top.
    public let components: [ChildNumber]

    /// The empty path (the key itself, `m`).
    public static let master = DerivationPath(uncheckedComponents: [])

    package init(uncheckedComponents: [ChildNumber]) { self.components = uncheckedComponents }

    /// A path of `components`.
    ///
    /// - Throws: `BIP32Error.pathTooDeep` for more than 255 levels.
    public init(_ components: [ChildNumber]) throws(BIP32Error) {
        guard components.count <= Self.maxDepth else { throw .pathTooDeep(levels: components.count) }
        self.components = components
    }

    public init(arrayLiteral elements: ChildNumber...) {
        precondition(elements.count <= Self.maxDepth, "derivation path literal deeper than 255")
        self.components = elements
    }

    /// Parses `m/84h/1'/0H/0/5`, `84h/0h` or `m` (an empty string is the empty path too).
    ///
    /// - Throws: `BIP32Error.invalidPathComponent` (empty component, garbage, sign, spaces),
    ///   `.indexOutOfRange` (index ≥ 2^31, with or without a hardened marker) or `.pathTooDeep`.
    public init(string: String) throws(BIP32Error) {
        var parts = string.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var position = 0
        if parts.first == "m" {
            parts.removeFirst()
            position = 2
            if parts.isEmpty {
                self.components = []
                return
            }
        } else if parts == [""] {
            self.components = []
            return
        }
        guard parts.count <= Self.maxDepth else { throw .pathTooDeep(levels: parts.count) }
        var out: [ChildNumber] = []
        out.reserveCapacity(parts.count)
        for part in parts {
            out.append(try ChildNumber(pathComponent: part, position: position, hardenedMarkers: "hH'"))
            position += part.utf8.count + 1
        }
        self.components = out
    }

    /// The number of levels.
    public var count: Int { components.count }

    /// Whether any level is hardened.
    public var hasHardenedComponent: Bool { components.contains { $0.isHardened } }

    /// This path followed by `child`.
    ///
    /// - Throws: `BIP32Error.pathTooDeep` past 255 levels.
    public func appending(_ child: ChildNumber) throws(BIP32Error) -> DerivationPath {
        try DerivationPath(components + [child])
    }

    /// This path followed by `other`.
    ///
    /// - Throws: `BIP32Error.pathTooDeep` past 255 levels.
    public func appending(_ other: DerivationPath) throws(BIP32Error) -> DerivationPath {
        try DerivationPath(components + other.components)
    }

    /// `m/84h/0h/0h` style text, `m` for the empty path.
    public var description: String { (["m"] + components.map(\.description)).joined(separator: "/") }

    /// The components joined by `/` without the leading `m` (as inside descriptor key origins).
    public var componentsDescription: String { components.map(\.description).joined(separator: "/") }
}

extension ChildNumber {
    /// Parses one path component: decimal digits (no sign, no leading `+`) and an optional hardened marker
    /// from `hardenedMarkers`.
    package init(pathComponent part: String, position: Int, hardenedMarkers: String) throws(BIP32Error) {
        var digits = Substring(part)
        var hardened = false
        if let last = digits.last, hardenedMarkers.contains(last) {
            hardened = true
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw .invalidPathComponent(part, position: position)
        }
        // Up to 10 digits fit in UInt64 without overflow; more are out of range anyway.
        guard digits.utf8.count <= 10, let value = UInt64(digits), value < UInt64(ChildNumber.hardenedOffset) else {
            throw .indexOutOfRange(part, position: position)
        }
        self.init(rawValue: hardened ? UInt32(value) | ChildNumber.hardenedOffset : UInt32(value))
    }
}
