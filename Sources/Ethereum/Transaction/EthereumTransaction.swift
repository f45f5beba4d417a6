public import BitcoinCrypto

/// An unsigned Ethereum transaction: legacy (with or without EIP-155), EIP-2930 (type 1) or EIP-1559 (type 2).
///
/// - SeeAlso: https://eips.ethereum.org/EIPS/eip-155, https://eips.ethereum.org/EIPS/eip-2930,
///   https://eips.ethereum.org/EIPS/eip-1559
public struct EthereumTransaction: Sendable, Equatable {
    /// The envelope.
    public enum Kind: Sendable, Equatable {
        /// Legacy, with a `gasPrice`.
        case legacy(gasPrice: UInt256)
        /// EIP-2930, with a `gasPrice` and an access list.
        case accessList(gasPrice: UInt256)
        /// EIP-1559, with a priority fee and a fee cap.
        case dynamicFee(maxPriorityFeePerGas: UInt256, maxFeePerGas: UInt256)
    }

    /// One access-list entry: an address and storage keys (32 bytes each).
    public struct AccessListEntry: Sendable, Equatable {
        /// The account.
        public var address: EthereumAddress
        /// Storage slots, 32 bytes each.
        public var storageKeys: [[UInt8]]

        /// An entry.
        public init(address: EthereumAddress, storageKeys: [[UInt8]]) {
            self.address = address
            self.storageKeys = storageKeys
        }
    }

    /// The envelope and its fee fields.
    public var kind: Kind
    /// The chain id; nil only for a legacy transaction without EIP-155 replay protection.
    public var chainID: UInt64?
    /// The sender's nonce.
    public var nonce: UInt64
    /// The gas limit.
    public var gasLimit: UInt64
    /// The recipient; nil creates a contract.
    public var to: EthereumAddress?
    /// The value sent.
    public var value: Wei
    /// The calldata (or init code for a contract creation).
    public var data: [UInt8]
    /// The EIP-2930 access list (empty for legacy).
    public var accessList: [AccessListEntry]

    /// A transaction from its fields.
    public init(
        kind: Kind, chainID: UInt64?, nonce: UInt64, gasLimit: UInt64, to: EthereumAddress?, value: Wei,
        data: [UInt8], accessList: [AccessListEntry] = []
    ) {
        self.kind = kind
        self.chainID = chainID
        self.nonce = nonce
        self.gasLimit = gasLimit
        self.to = to
        self.value = value
        self.data = data
        self.accessList = accessList
    }

    /// The EIP-2718 type byte, nil for legacy.
    public var typeByte: UInt8? {
        switch kind {
        case .legacy: nil
        case .accessList: 0x01
        case .dynamicFee: 0x02
        }
    }

    /// The most the transaction can pay in fees: gas limit × gas price (or × max fee per gas).
    ///
    /// - Throws: `UInt256Error.overflow` (impossible for real fields, but checked).
    public func worstCaseFee() throws(UInt256Error) -> Wei {
        switch kind {
        case .legacy(let price), .accessList(let price):
            return Wei(try price.multiplied(by: gasLimit))
        case .dynamicFee(_, let maxFee):
            return Wei(try maxFee.multiplied(by: gasLimit))
        }
    }

    /// The bytes that are signed: the unsigned RLP, after the type byte for typed transactions.
    public func unsignedSerialized() -> [UInt8] {
        var fields = bodyFields()
        if case .legacy = kind, let chainID {
            fields += [.integer(chainID), .bytes([]), .bytes([])]
        }
        return envelope(RLP.list(fields))
    }

    /// The hash to sign: Keccak-256 of `unsignedSerialized()`.
    public var signingHash: [UInt8] { Keccak256.hash(unsignedSerialized()) }

    /// The signed transaction as it is broadcast (raw bytes).
    ///
    /// - Throws: `TransactionError.unsupportedRecoveryID` when the recovery id is above 1,
    ///   `.chainIDTooLarge` when EIP-155's `v` overflows.
    public func signedSerialized(signature: RecoverableSignature) throws(TransactionError) -> [UInt8] {
        let v = try self.v(for: signature)
        var fields = bodyFields()
        fields += [.bytes(v.minimalBytes), .bytes(Self.trimmed(signature.r)), .bytes(Self.trimmed(signature.s))]
        return envelope(RLP.list(fields))
    }

    /// The `v` written with a signature: the y-parity for typed transactions, `27 + parity` for a legacy
    /// transaction without chain id, `chainId × 2 + 35 + parity` (EIP-155) otherwise.
    ///
    /// - Throws: `TransactionError.unsupportedRecoveryID` or `.chainIDTooLarge`.
    public func v(for signature: RecoverableSignature) throws(TransactionError) -> UInt256 {
        guard signature.recoveryID <= 1 else { throw .unsupportedRecoveryID(signature.recoveryID) }
        let parity = UInt64(signature.recoveryID)
        switch kind {
        case .accessList, .dynamicFee:
            return UInt256(parity)
        case .legacy:
            guard let chainID else { return UInt256(27 + parity) }
            do {
                return try UInt256(chainID).multiplied(by: 2).adding(UInt256(35 + parity))
            } catch {
                throw .chainIDTooLarge
            }
        }
    }

    private static func trimmed(_ bytes: [UInt8]) -> [UInt8] { Array(bytes.drop { $0 == 0 }) }

    private func envelope(_ item: RLP) -> [UInt8] {
        guard let typeByte else { return item.serialized() }
        return [typeByte] + item.serialized()
    }

    private func bodyFields() -> [RLP] {
        let toField = RLP.bytes(to?.bytes ?? [])
        let common: [RLP] = [toField, .bytes(value.amount.minimalBytes), .bytes(data)]
        switch kind {
        case .legacy(let price):
            return [.integer(nonce), .bytes(price.minimalBytes), .integer(gasLimit)] + common
        case .accessList(let price):
            return [.integer(chainID ?? 0), .integer(nonce), .bytes(price.minimalBytes), .integer(gasLimit)] + common
                + [accessListRLP]
        case .dynamicFee(let tip, let cap):
            return [
                .integer(chainID ?? 0), .integer(nonce), .bytes(tip.minimalBytes), .bytes(cap.minimalBytes),
                .integer(gasLimit),
            ] + common + [accessListRLP]
        }
    }

    private var accessListRLP: RLP {
        .list(accessList.map { .list([.bytes($0.address.bytes), .list($0.storageKeys.map { .bytes($0) })]) })
    }
}
