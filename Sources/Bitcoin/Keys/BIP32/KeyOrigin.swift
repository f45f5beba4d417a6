/// Where a key comes from: the master key's fingerprint and the path from it, written `[d34db33f/84h/0h/0h]`.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki#key-expressions
public struct KeyOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The fingerprint of the master key.
    public let fingerprint: Fingerprint
    /// The path from the master key.
    public let path: DerivationPath

    /// An origin from its parts.
    public init(fingerprint: Fingerprint, path: DerivationPath) {
        self.fingerprint = fingerprint
        self.path = path
    }

    /// Parses `[d34db33f/84h/0h/0h]` or `d34db33f/84h/0h/0h` (brackets optional; `h`, `H` or `'` markers).
    ///
    /// - Throws: `BIP32Error.invalidFingerprint` or a path error.
    public init(string: String) throws(BIP32Error) {
        var text = Substring(string)
        if text.first == "[", text.last == "]" { text = text.dropFirst().dropLast() }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        self.fingerprint = try Fingerprint(hex: String(parts[0]))
        if parts.count == 2 {
            let rest = String(parts[1])
            guard !rest.isEmpty else { throw .invalidPathComponent("", position: 9) }
            self.path = try DerivationPath(string: rest)
        } else {
            self.path = .master
        }
    }

    /// The origin of a child: the same fingerprint, the path extended by `child`.
    ///
    /// - Throws: `BIP32Error.pathTooDeep` past 255 levels.
    public func appending(_ child: ChildNumber) throws(BIP32Error) -> KeyOrigin {
        KeyOrigin(fingerprint: fingerprint, path: try path.appending(child))
    }

    /// `[fingerprint/path]` with `h` markers.
    public var description: String {
        path.count == 0 ? "[\(fingerprint)]" : "[\(fingerprint)/\(path.componentsDescription)]"
    }
}
