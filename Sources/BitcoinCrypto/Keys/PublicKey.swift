internal import CSecp256k1
import Synchronization

/// A secp256k1 public key, kept in compressed form (33 bytes); uncompressed input (65 bytes) is accepted.
public struct PublicKey: Sendable, Hashable {
    /// The 33-byte compressed encoding.
    public let compressed: [UInt8]
    /// The point in libsecp256k1's internal form, kept so that operations need not parse (a square root) again.
    private let raw: secp256k1_pubkey

    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool { lhs.compressed == rhs.compressed }
    public func hash(into hasher: inout Hasher) { hasher.combine(compressed) }

    init(raw: secp256k1_pubkey) {
        self.raw = raw
        var raw = raw
        var out = [UInt8](repeating: 0, count: 33)
        var length = 33
        let code = secp256k1_ec_pubkey_serialize(
            Secp256k1Context.shared, &out, &length, &raw, UInt32(SECP256K1_EC_COMPRESSED))
        precondition(code == 1 && length == 33, "secp256k1_ec_pubkey_serialize failed")
        self.compressed = out
    }

    /// Parses a compressed (33-byte) or uncompressed (65-byte) public key.
    ///
    /// - Throws: `KeyError.invalidLength` or `KeyError.notOnCurve`.
    public init(serialized bytes: some Collection<UInt8>) throws(KeyError) {
        let input = Array(bytes)
        guard input.count == 33 || input.count == 65 else { throw .invalidLength(expected: 33, actual: input.count) }
        if input.count == 33, input[0] != 0x02, input[0] != 0x03 { throw .notOnCurve }
        if input.count == 65, input[0] != 0x04 { throw .notOnCurve }
        if let known = ParsedPublicKeys.shared.key(for: input) {
            self = known
            return
        }
        var raw = secp256k1_pubkey()
        guard secp256k1_ec_pubkey_parse(Secp256k1Context.shared, &raw, input, input.count) == 1 else {
            throw .notOnCurve
        }
        self.init(raw: raw)
        ParsedPublicKeys.shared.remember(self, for: input)
    }

    /// The 65-byte uncompressed encoding.
    public var uncompressed: [UInt8] {
        var raw = parsed
        var out = [UInt8](repeating: 0, count: 65)
        var length = 65
        let code = secp256k1_ec_pubkey_serialize(
            Secp256k1Context.shared, &out, &length, &raw, UInt32(SECP256K1_EC_UNCOMPRESSED))
        precondition(code == 1, "secp256k1_ec_pubkey_serialize failed")
        return out
    }

    /// The key in libsecp256k1's internal form.
    var parsed: secp256k1_pubkey { raw }

    /// The x-only key of BIP340 and whether the full point's y is odd.
    public var xOnly: (key: XOnlyPublicKey, parityIsOdd: Bool) {
        (XOnlyPublicKey(validated: Array(compressed.dropFirst())), compressed[0] == 0x03)
    }

    /// This point plus `tweak`·G (BIP32 CKDpub).
    ///
    /// - Throws: `KeyError.invalidTweak` when the tweak is not below the order or the sum is infinity.
    public func adding(tweak: some Collection<UInt8>) throws(KeyError) -> PublicKey {
        let tweakBytes = Array(tweak)
        guard tweakBytes.count == 32 else { throw .invalidLength(expected: 32, actual: tweakBytes.count) }
        var raw = parsed
        guard secp256k1_ec_pubkey_tweak_add(Secp256k1Context.shared, &raw, tweakBytes) == 1 else {
            throw .invalidTweak
        }
        return PublicKey(raw: raw)
    }

    /// This point multiplied by the scalar `tweak` (MuSig2 key aggregation).
    public func multiplied(by tweak: some Collection<UInt8>) throws(KeyError) -> PublicKey {
        let tweakBytes = Array(tweak)
        guard tweakBytes.count == 32 else { throw .invalidLength(expected: 32, actual: tweakBytes.count) }
        var raw = parsed
        guard secp256k1_ec_pubkey_tweak_mul(Secp256k1Context.shared, &raw, tweakBytes) == 1 else {
            throw .invalidTweak
        }
        return PublicKey(raw: raw)
    }

    /// The sum of `keys` as points.
    ///
    /// - Throws: `KeyError.pointAtInfinity` when they sum to infinity (or the list is empty).
    public static func combine(_ keys: [PublicKey]) throws(KeyError) -> PublicKey {
        guard !keys.isEmpty else { throw .pointAtInfinity }
        var raws = keys.map(\.parsed)
        var out = secp256k1_pubkey()
        let code = raws.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return 0 }
            var pointers: [UnsafePointer<secp256k1_pubkey>?] = (0..<buffer.count).map { UnsafePointer(base + $0) }
            return secp256k1_ec_pubkey_combine(Secp256k1Context.shared, &out, &pointers, pointers.count)
        }
        guard code == 1 else { throw .pointAtInfinity }
        return PublicKey(raw: out)
    }

    /// Verifies an ECDSA signature over a 32-byte digest; signatures with high S are rejected, as Bitcoin does.
    public func verify(_ signature: ECDSASignature, digest: some Collection<UInt8>) -> Bool {
        let message = Array(digest)
        guard message.count == 32 else { return false }
        var raw = parsed
        var sig = secp256k1_ecdsa_signature()
        guard secp256k1_ecdsa_signature_parse_compact(Secp256k1Context.shared, &sig, signature.compact) == 1 else {
            return false
        }
        return secp256k1_ecdsa_verify(Secp256k1Context.shared, &sig, message, &raw) == 1
    }
}

extension PublicKey: CustomStringConvertible {
    public var description: String { compressed.map { String($0, radix: 16).leftPadded(2) }.joined() }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

/// The public keys recently parsed, by the bytes they were parsed from, so that the same bytes are not decompressed
/// again.
///
/// Parsing a compressed key is a field square root (about 48,000 instructions), and signing a P2WPKH input parsed its
/// derivation's key three times: the parser's check, the review's decoded derivations and the signer's match
/// (issue 19, docs/benchmarks.md). Only keys that parsed are remembered, so invalid bytes are refused every time;
/// the map is emptied when it reaches `capacity`, which bounds its memory. Public keys are not secret.
final class ParsedPublicKeys: Sendable {
    static let shared = ParsedPublicKeys()
    static let capacity = 8_192
    private let keys = Mutex([[UInt8]: PublicKey]())

    func key(for bytes: [UInt8]) -> PublicKey? { keys.withLock { $0[bytes] } }

    func remember(_ key: PublicKey, for bytes: [UInt8]) {
        keys.withLock { keys in
            if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
            keys[bytes] = key
        }
    }
}
