import BitcoinCrypto

/// A BIP327 MuSig2 aggregate public key: the participant keys in the order given, and
/// Q = a_1·P_1 + … + a_u·P_u with the KeyAgg coefficients a_i.
///
/// KeyAgg is order-sensitive: the same keys in another order give another Q. Callers that want an order-free
/// result sort first with `sorted(_:)` (KeySort), as BIP390 `musig()` descriptors do.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0327.mediawiki#key-aggregation
public struct MuSigAggregateKey: Sendable, Hashable {
    /// The participant keys, in the order they were aggregated (repeats allowed).
    public let participants: [PublicKey]
    /// The aggregate point Q with its parity (the plain, untweaked aggregate key).
    public let publicKey: PublicKey

    /// BIP327 `KeyAgg list`.
    static let listHash = TaggedHash(tag: "KeyAgg list")
    /// BIP327 `KeyAgg coefficient`.
    static let coefficientHash = TaggedHash(tag: "KeyAgg coefficient")
    /// The secp256k1 group order n, big-endian.
    static let order = GroupOrder.bytes

    /// Aggregates `participants` in the given order (BIP327 KeyAgg).
    ///
    /// - Throws: `MuSigError.noParticipants` for an empty list, `.aggregateAtInfinity` when Q is infinity.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0327.mediawiki#key-aggregation
    public init(participants: [PublicKey]) throws(MuSigError) {
        guard let first = participants.first else { throw .noParticipants }
        let list = Self.listHash.hash(participants.flatMap(\.compressed))
        let second = participants.first { $0 != first }
        var terms: [PublicKey] = []
        terms.reserveCapacity(participants.count)
        for key in participants {
            if key == second {
                terms.append(key)  // GetSecondKey: the coefficient is 1
                continue
            }
            let coefficient = Self.reducedModOrder(Self.coefficientHash.hash(list + key.compressed))
            do {
                terms.append(try key.multiplied(by: coefficient))
            } catch {
                throw .aggregateAtInfinity
            }
        }
        do {
            self.publicKey = try PublicKey.combine(terms)
        } catch {
            throw .aggregateAtInfinity
        }
        self.participants = participants
    }

    /// Parses each 33-byte plain key and aggregates them in the given order.
    ///
    /// - Throws: `MuSigError.invalidParticipant` naming the first key that does not parse (BIP327 blames that
    ///   signer), or any error of `init(participants:)`.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0327.mediawiki#key-aggregation
    public init(serializedParticipants: [[UInt8]]) throws(MuSigError) {
        var keys: [PublicKey] = []
        for (index, bytes) in serializedParticipants.enumerated() {
            guard bytes.count == 33 else {
                throw .invalidParticipant(index: index, .invalidLength(expected: 33, actual: bytes.count))
            }
            do {
                keys.append(try PublicKey(serialized: bytes))
            } catch {
                throw .invalidParticipant(index: index, error)
            }
        }
        try self.init(participants: keys)
    }

    /// The x-only form of Q, as a taproot output or internal key uses it (BIP327 GetXonlyPubkey).
    public var xOnly: XOnlyPublicKey { publicKey.xOnly.key }

    /// The keys in BIP327 KeySort order: ascending by their 33-byte encoding.
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0327.mediawiki#key-sorting
    public static func sorted(_ keys: [PublicKey]) -> [PublicKey] {
        keys.sorted { $0.compressed.lexicographicallyPrecedes($1.compressed) }
    }

    /// `hash` as a big-endian integer reduced modulo n.
    static func reducedModOrder(_ hash: [UInt8]) -> [UInt8] { GroupOrder.reduced(hash) }
}
