/// A BIP32 key path as `crypto-keypath` carries it: components, optional source fingerprint and depth.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-007-hdkey.md
public struct URKeypath: Equatable, Sendable {
    /// One path step.
    public enum Component: Equatable, Sendable {
        /// A child index below 2^31, hardened or not.
        case index(UInt32, hardened: Bool)
        /// Every child (`*`).
        case wildcard(hardened: Bool)
        /// Children `low...high` (`<low-high>` in this module's text form).
        case range(low: UInt32, high: UInt32, hardened: Bool)
    }

    /// The path steps.
    public var components: [Component]
    /// Fingerprint of the key the path starts from (the master key for an origin).
    public var sourceFingerprint: KeyFingerprint?
    /// Number of derivations from the master key, when given.
    public var depth: UInt8?

    public init(components: [Component], sourceFingerprint: KeyFingerprint? = nil, depth: UInt8? = nil) {
        self.components = components
        self.sourceFingerprint = sourceFingerprint
        self.depth = depth
    }

    /// The path text without a leading slash, hardened steps marked `h`: `84h/1h/0h`, `1/*`.
    public var pathText: String {
        components.map { component in
            switch component {
            case .index(let i, let h): "\(i)\(h ? "h" : "")"
            case .wildcard(let h): "*\(h ? "h" : "")"
            case .range(let low, let high, let h): "<\(low)-\(high)>\(h ? "h" : "")"
            }
        }.joined(separator: "/")
    }

    /// The key-origin text of descriptors: `[37b5eed4/84h/0h/0h]`; nil without a source fingerprint.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki#key-expressions
    public var originText: String? {
        guard let sourceFingerprint else { return nil }
        return components.isEmpty ? "[\(sourceFingerprint)]" : "[\(sourceFingerprint)/\(pathText)]"
    }

    func cbor(tags: URTagSet) -> CBOR {
        var items: [CBOR] = []
        for component in components {
            switch component {
            case .index(let i, let h): items += [.unsigned(UInt64(i)), .bool(h)]
            case .wildcard(let h): items += [.array([]), .bool(h)]
            case .range(let low, let high, let h):
                items += [.array([.unsigned(UInt64(low)), .unsigned(UInt64(high))]), .bool(h)]
            }
        }
        return .tagged(
            tags.keypath,
            .intMap([
                (1, .array(items)), (2, sourceFingerprint.map { .unsigned(UInt64($0.rawValue)) }),
                (3, depth.map { .unsigned(UInt64($0)) }),
            ]))
    }

    init(cbor tagged: CBOR, reader r: RegistryReader) throws(URError) {
        let item = try r.map(r.untag(tagged, [URTag.keypath, URTag.keypathV2], context: "keypath"), context: "keypath")
        var components: [Component] = []
        if let list = item[1] {
            guard case .array(let items) = list, items.count % 2 == 0 else {
                throw r.fail("keypath components are not pairs")
            }
            var i = 0
            while i < items.count {
                guard case .bool(let hardened) = items[i + 1] else {
                    throw r.fail("keypath is-hardened is not a boolean")
                }
                switch items[i] {
                case .unsigned(let index) where index < 0x8000_0000:
                    components.append(.index(UInt32(index), hardened: hardened))
                case .array(let range) where range.isEmpty:
                    components.append(.wildcard(hardened: hardened))
                case .array(let range) where range.count == 2:
                    guard case .unsigned(let low) = range[0], case .unsigned(let high) = range[1], low < high,
                        high < 0x8000_0000
                    else { throw r.fail("keypath range is not [low, high] below 2^31") }
                    components.append(.range(low: UInt32(low), high: UInt32(high), hardened: hardened))
                default:
                    throw r.fail("keypath component is not an index below 2^31, [] or [low, high]")
                }
                i += 2
            }
        }
        self.components = components
        sourceFingerprint = try r.uint32(item[2], context: "source-fingerprint").map(KeyFingerprint.init(rawValue:))
        if let depth = item[3] {
            guard case .unsigned(let d) = depth, d <= 255 else { throw r.fail("keypath depth is not a uint8") }
            self.depth = UInt8(d)
        } else {
            self.depth = nil
        }
    }
}
