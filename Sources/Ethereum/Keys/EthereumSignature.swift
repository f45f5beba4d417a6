public import BitcoinCrypto

/// A 65-byte Ethereum signature r ‖ s ‖ v as EIP-4527 returns it, `v` written as a minimal big-endian integer
/// (one byte, or as many as a large chain id's EIP-155 `v` needs).
public struct EthereumSignature: Sendable, Equatable {
    /// The recoverable signature.
    public let signature: RecoverableSignature
    /// The `v` value: y-parity (typed transactions), 27/28 (messages) or EIP-155's `chainId × 2 + 35 + parity`.
    public let v: UInt256

    /// A signature and its `v`.
    public init(signature: RecoverableSignature, v: UInt256) {
        self.signature = signature
        self.v = v
    }

    /// r ‖ s ‖ v (v minimal, at least one byte).
    public var bytes: [UInt8] {
        let vBytes = v.minimalBytes
        return signature.compact + (vBytes.isEmpty ? [0] : vBytes)
    }

    /// The signature of a message (EIP-191 or EIP-712): `v` is 27 + parity.
    public static func message(_ signature: RecoverableSignature) -> EthereumSignature {
        EthereumSignature(signature: signature, v: UInt256(27 + UInt64(signature.recoveryID)))
    }
}

extension PrivateKey {
    /// The Ethereum address of this key.
    public var ethereumAddress: EthereumAddress { EthereumAddress(publicKey: publicKey) }
}

extension PublicKey {
    /// The Ethereum address of this key.
    public var ethereumAddress: EthereumAddress { EthereumAddress(publicKey: self) }
}
