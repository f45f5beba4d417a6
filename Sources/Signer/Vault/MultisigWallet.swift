import Bitcoin

/// A registered multisig wallet: a name and its `wsh(sortedmulti(…))`-style descriptor, kept in the vault header so
/// that `sign` can re-derive multisig change (docs/architecture.md section 5).
public struct MultisigWallet: Sendable, Equatable {
    /// The user's name for the wallet.
    public let name: String
    /// The descriptor in canonical form with checksum (public keys only).
    public let descriptorText: String
    /// The required number of signatures.
    public let threshold: Int
    /// The number of cosigner keys.
    public let keyCount: Int
    /// The script form: `wsh`, `sh-wsh` or `sh`.
    public let scriptType: String

    /// Parses and checks `descriptor`: `wsh(…)`, `sh(wsh(…))` or `sh(…)` around `multi`/`sortedmulti`, public keys
    /// only, every key an extended key with an origin.
    ///
    /// - Throws: `MultisigError`.
    public init(name: String, descriptor: String) throws(MultisigError) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 64, !trimmed.contains(where: \.isNewline) else {
            throw .invalidName(name)
        }
        let parsed: Descriptor
        do { parsed = try Descriptor(string: descriptor.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
            throw .invalidDescriptor(String(describing: error))
        }
        guard !parsed.hasPrivateKeys else { throw .privateKeysInDescriptor }
        let (inner, type): (DescriptorExpression, String)
        switch parsed.expression {
        case .wsh(let e): (inner, type) = (e, "wsh")
        case .sh(.wsh(let e)): (inner, type) = (e, "sh-wsh")
        case .sh(let e): (inner, type) = (e, "sh")
        default: throw .notMultisig
        }
        guard case .multi(let threshold, let keys, _) = inner else { throw .notMultisig }
        var seen: Set<[UInt8]> = []
        for key in keys {
            guard case .extended(let extended) = key.material, let origin = key.origin else { throw .keyWithoutOrigin }
            // The same key twice makes an M-of-N that one cosigner can satisfy with fewer devices than it shows.
            guard seen.insert(extended.extendedPublicKey.publicKey.compressed).inserted else {
                throw .duplicateKey(origin.description)
            }
        }
        self.name = trimmed
        self.descriptorText = parsed.description
        self.threshold = threshold
        self.keyCount = keys.count
        self.scriptType = type
    }

    /// The parsed descriptor (it was valid when this value was made).
    public var descriptor: Descriptor {
        get throws(MultisigError) {
            do { return try Descriptor(string: descriptorText) } catch {
                throw .invalidDescriptor(String(describing: error))
            }
        }
    }

    /// The cosigner keys, in descriptor order.
    public var cosigners: [DescriptorKey] {
        get throws(MultisigError) { try descriptor.expression.keys }
    }
}
