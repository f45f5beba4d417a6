/// What the PSBT signer may do beyond the strict default (docs/architecture.md rule R7: each widening is an explicit option).
public struct SigningOptions: Sendable, Equatable {
    /// Sign inputs that ask for a sighash type other than ALL (ECDSA) or DEFAULT/ALL (taproot).
    public var allowNonDefaultSighash = false
    /// Sign segwit v0 inputs that carry only a witness UTXO, without the full previous transaction (which leaves the
    /// signer open to the fee attack on amounts).
    public var allowMissingPreviousTransaction = false

    /// Grind ECDSA nonces until R is low (Bitcoin Core since 0.17).
    ///
    /// Off only to reproduce older test vectors.
    public var grindLowR = true

    /// Nothing widened: only SIGHASH_ALL / DEFAULT, and full previous transactions for every non-taproot input.
    public static let strict = SigningOptions()

    /// Options with the given widenings.
    public init(
        allowNonDefaultSighash: Bool = false, allowMissingPreviousTransaction: Bool = false, grindLowR: Bool = true
    ) {
        self.allowNonDefaultSighash = allowNonDefaultSighash
        self.allowMissingPreviousTransaction = allowMissingPreviousTransaction
        self.grindLowR = grindLowR
    }
}
