internal import CSecp256k1
import Synchronization

/// A BIP340 x-only public key: the 32-byte x coordinate of a point with even y.
public struct XOnlyPublicKey: Sendable, Hashable {
    /// The 32 bytes of the x coordinate.
    public let bytes: [UInt8]

    init(validated bytes: [UInt8]) { self.bytes = bytes }

    /// Parses 32 bytes as an x-only key.
    ///
    /// - Throws: `KeyError.invalidLength` or `KeyError.notOnCurve` when no point has that x coordinate.
    public init(serialized bytes: some Collection<UInt8>) throws(KeyError) {
        let input = Array(bytes)
        guard input.count == 32 else { throw .invalidLength(expected: 32, actual: input.count) }
        if !ValidXOnlyKeys.shared.contains(input) {
            var raw = secp256k1_xonly_pubkey()
            guard secp256k1_xonly_pubkey_parse(Secp256k1Context.shared, &raw, input) == 1 else { throw .notOnCurve }
            ValidXOnlyKeys.shared.insert(input)
        }
        self.bytes = input
    }

    var parsed: secp256k1_xonly_pubkey {
        var raw = secp256k1_xonly_pubkey()
        let code = secp256k1_xonly_pubkey_parse(Secp256k1Context.shared, &raw, bytes)
        precondition(code == 1, "a validated x-only key failed to parse")
        return raw
    }

    /// The full point with even y (prefix 0x02), as BIP340 lifts an x-only key.
    public var evenPublicKey: PublicKey {
        // 0x02 ‖ x always parses for a valid x-only key.
        (try? PublicKey(serialized: [0x02] + bytes)) ?? { preconditionFailure("lift_x failed on a validated key") }()
    }

    /// Q = P + tweak·G, as an x-only key with the parity of Q's y (BIP341 output key derivation).
    ///
    /// - Throws: `KeyError.invalidTweak` when the tweak is not below the order or Q is infinity.
    public func adding(tweak: some Collection<UInt8>) throws(KeyError) -> (key: XOnlyPublicKey, parityIsOdd: Bool) {
        let tweakBytes = Array(tweak)
        guard tweakBytes.count == 32 else { throw .invalidLength(expected: 32, actual: tweakBytes.count) }
        var internalKey = parsed
        var output = secp256k1_pubkey()
        guard secp256k1_xonly_pubkey_tweak_add(Secp256k1Context.shared, &output, &internalKey, tweakBytes) == 1 else {
            throw .invalidTweak
        }
        return PublicKey(raw: output).xOnly
    }

    /// Verifies a BIP340 Schnorr signature over `message` (any length).
    public func verify(_ signature: SchnorrSignature, message: some Collection<UInt8>) -> Bool {
        var raw = parsed
        let messageBytes = Array(message)
        return secp256k1_schnorrsig_verify(
            Secp256k1Context.shared, signature.bytes, messageBytes, messageBytes.count, &raw) == 1
    }
}

/// The x coordinates recently found on the curve, so that the same 32 bytes are not parsed again.
///
/// Whether 32 bytes are an x-only key is a fixed property of the bytes (x³ + 7 must be a square), but checking it is
/// a field square root (about 48,000 instructions); and a P2TR script's template, which many steps of a review and a
/// signature read, is `.p2tr` only for a valid key. The P2TR signing benchmark parsed the same keys 20 times an input
/// (issue 19, docs/benchmarks.md): a third of its instructions. Only keys that parsed are remembered, so an invalid
/// key is refused every time; the set is emptied when it reaches `capacity`, which bounds its memory.
final class ValidXOnlyKeys: Sendable {
    static let shared = ValidXOnlyKeys()
    static let capacity = 8_192
    private let keys = Mutex(Set<[UInt8]>())

    func contains(_ key: [UInt8]) -> Bool { keys.withLock { $0.contains(key) } }

    func insert(_ key: [UInt8]) {
        keys.withLock { keys in
            if keys.count >= Self.capacity { keys.removeAll(keepingCapacity: true) }
            keys.insert(key)
        }
    }
}

extension XOnlyPublicKey: CustomStringConvertible {
    public var description: String { bytes.map { String($0, radix: 16).leftPadded(2) }.joined() }
}
