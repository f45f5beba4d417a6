internal import CSecp256k1

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
        var raw = secp256k1_xonly_pubkey()
        guard secp256k1_xonly_pubkey_parse(Secp256k1Context.shared, &raw, input) == 1 else { throw .notOnCurve }
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

extension XOnlyPublicKey: CustomStringConvertible {
    public var description: String { bytes.map { String($0, radix: 16).leftPadded(2) }.joined() }
}
