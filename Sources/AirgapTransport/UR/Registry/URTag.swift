/// CBOR tags of the UR registry, in the original (BCR-2020-006) and the 2023 (`40300`-range) numbering.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-006-urtypes.md
package enum URTag {
    package static let hdKey: UInt64 = 303
    package static let keypath: UInt64 = 304
    package static let coinInfo: UInt64 = 305
    package static let ecKey: UInt64 = 306
    package static let cryptoOutput: UInt64 = 308
    package static let hdKeyV2: UInt64 = 40303
    package static let keypathV2: UInt64 = 40304
    package static let coinInfoV2: UInt64 = 40305
    package static let ecKeyV2: UInt64 = 40306
    package static let outputDescriptor: UInt64 = 40308
    // Script expressions (BCR-2020-010).
    package static let sh: UInt64 = 400
    package static let wsh: UInt64 = 401
    package static let pk: UInt64 = 402
    package static let pkh: UInt64 = 403
    package static let wpkh: UInt64 = 404
    package static let combo: UInt64 = 405
    package static let multi: UInt64 = 406
    package static let sortedMulti: UInt64 = 407
    package static let tr: UInt64 = 409
    package static let cosigner: UInt64 = 410
}

/// Which tag numbering an encoder writes: `v1` for `crypto-output`/`crypto-account`, `v2` for the 2023 types.
public enum URTagSet: Sendable {
    /// 303 hdkey, 304 keypath, 305 coininfo, 306 eckey (BCR-2020-007/008/010/015).
    case v1
    /// 40303 hdkey, 40304 keypath, 40305 coininfo, 40306 eckey (BCR-2023-010/019).
    case v2

    var hdKey: UInt64 { self == .v1 ? URTag.hdKey : URTag.hdKeyV2 }
    var keypath: UInt64 { self == .v1 ? URTag.keypath : URTag.keypathV2 }
    var coinInfo: UInt64 { self == .v1 ? URTag.coinInfo : URTag.coinInfoV2 }
    var ecKey: UInt64 { self == .v1 ? URTag.ecKey : URTag.ecKeyV2 }
}

/// A master-key or parent-key fingerprint: the first four bytes of HASH160 of the public key.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki#key-identifiers
public struct KeyFingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The fingerprint as a big-endian integer (how CBOR carries it).
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The 8 lower-case hex digits used in descriptors, e.g. `37b5eed4`.
    public var description: String {
        TextCodec.hexString([
            UInt8(rawValue >> 24), UInt8((rawValue >> 16) & 0xFF), UInt8((rawValue >> 8) & 0xFF),
            UInt8(rawValue & 0xFF),
        ])
    }
}

/// Small helpers to read registry maps with typed errors.
struct RegistryReader {
    let type: String

    func fail(_ reason: String) -> URError { .invalidRegistryItem(type: type, reason: reason) }

    func map(_ item: CBOR, context: String) throws(URError) -> CBOR {
        guard case .map(let entries) = item else { throw fail("\(context) is not a map") }
        for entry in entries {
            guard case .unsigned = entry.key else { throw fail("\(context) has a non-integer key") }
        }
        return item
    }

    func untag(_ item: CBOR, _ tags: [UInt64], context: String) throws(URError) -> CBOR {
        guard case .tagged(let tag, let inner) = item, tags.contains(tag) else {
            throw fail("\(context) is not tagged \(tags.map(String.init).joined(separator: " or "))")
        }
        return inner
    }

    func uint32(_ item: CBOR?, context: String) throws(URError) -> UInt32? {
        guard let item else { return nil }
        guard case .unsigned(let v) = item, v <= UInt64(UInt32.max) else { throw fail("\(context) is not a uint32") }
        return UInt32(v)
    }

    func bool(_ item: CBOR?, context: String) throws(URError) -> Bool? {
        guard let item else { return nil }
        guard case .bool(let b) = item else { throw fail("\(context) is not a boolean") }
        return b
    }

    func bytes(_ item: CBOR?, context: String) throws(URError) -> [UInt8]? {
        guard let item else { return nil }
        guard case .bytes(let b) = item else { throw fail("\(context) is not a byte string") }
        return b
    }

    func text(_ item: CBOR?, context: String) throws(URError) -> String? {
        guard let item else { return nil }
        guard case .text(let t) = item else { throw fail("\(context) is not a text string") }
        return t
    }
}
