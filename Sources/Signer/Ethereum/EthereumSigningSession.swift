public import Bitcoin
public import BitcoinCrypto
public import Ethereum

/// Reviews and signs one EIP-4527 request with a key of this vault's seed (docs/architecture.md section 10): the library
/// decision behind `airlock-signer sign` for `ur:eth-sign-request`.
public struct EthereumSigningSession: Sendable {
    /// What a request asks for (the fields of `eth-sign-request` the decision needs).
    public struct Request: Sendable {
        /// The sign-data's type.
        public enum DataType: Sendable {
            case legacyTransaction, typedData, personalMessage, typedTransaction
        }
        /// The data to sign.
        public var signData: [UInt8]
        /// Its type.
        public var dataType: DataType
        /// The request's chain id.
        public var chainID: UInt64?
        /// The key's path.
        public var path: DerivationPath
        /// The address the request expects, when it names one.
        public var address: EthereumAddress?

        /// A request from its fields.
        public init(
            signData: [UInt8], dataType: DataType, chainID: UInt64?, path: DerivationPath, address: EthereumAddress?
        ) {
            self.signData = signData
            self.dataType = dataType
            self.chainID = chainID
            self.path = path
            self.address = address
        }
    }

    /// The seed's master key.
    let master: ExtendedPrivateKey
    /// The highest worst-case fee signed (`--max-fee-eth`, default 0.05 ETH).
    public var maxFee: Wei

    /// 0.05 ETH.
    public static let defaultMaxFee = Wei(UInt256(50_000_000_000_000_000))

    /// Keys imported into the vault (`key import`), used when a request names one's address.
    let importedKeys: [PrivateKey]

    /// A session over `master` (and the vault's imported Ethereum keys) refusing fees above `maxFee`.
    public init(master: ExtendedPrivateKey, maxFee: Wei = defaultMaxFee, importedKeys: [PrivateKey] = []) {
        self.master = master
        self.maxFee = maxFee
        self.importedKeys = importedKeys
    }

    /// The imported key whose address `address` is, if any.
    public func importedKey(address: EthereumAddress?) -> PrivateKey? {
        guard let address else { return nil }
        return importedKeys.first { $0.ethereumAddress == address }
    }

    /// The key a request is signed with: the imported key with the address it names, else the seed's key at its
    /// path (an empty path with no imported key of that address: `EthereumSigningError.keyDerivation`).
    public func signingKey(path: DerivationPath, address: EthereumAddress?) throws(EthereumSigningError) -> PrivateKey {
        if let imported = importedKey(address: address) { return imported }
        guard !path.components.isEmpty else {
            throw .keyDerivation("the request names no derivation path and no imported key has its address")
        }
        return try key(at: path)
    }

    /// The key and address at `path`.
    ///
    /// - Throws: `EthereumSigningError.keyDerivation`.
    public func key(at path: DerivationPath) throws(EthereumSigningError) -> PrivateKey {
        do { return try master.derive(path).privateKey } catch { throw .keyDerivation("\(error)") }
    }

    /// The address at `m/44'/60'/0'/0/index` (BIP44, as MetaMask and Trust Wallet number accounts).
    ///
    /// - Throws: `EthereumSigningError.keyDerivation`.
    public func address(index: UInt32) throws(EthereumSigningError) -> (address: EthereumAddress, path: DerivationPath)
    {
        let path: DerivationPath
        do { path = try DerivationPath(string: "m/44'/60'/0'/0/\(index)") } catch { throw .keyDerivation("\(error)") }
        return (try key(at: path).ethereumAddress, path)
    }

    /// Decodes the request and decides: the review lists what it does and any refusal.
    ///
    /// - Throws: `EthereumSigningError.invalidSignData` when the data is not what its type says,
    ///   `.keyDerivation`.
    public func review(_ request: Request) throws(EthereumSigningError) -> EthereumReview {
        let from = try signingKey(path: request.path, address: request.address).ethereumAddress
        var refusals: [EthereumRefusal] = []
        var warnings: [String] = []
        var lines: [(String, String)] = []
        if let expected = request.address, expected != from {
            refusals.append(.addressMismatch(requested: expected, derived: from))
        }
        let content: EthereumReview.Content
        let hash: [UInt8]
        var chainID = request.chainID
        switch request.dataType {
        case .legacyTransaction, .typedTransaction:
            let tx: EthereumTransaction
            do { tx = try EthereumTransaction(unsignedSerialized: request.signData) } catch {
                throw .invalidSignData("the transaction does not parse: \(error)")
            }
            if (request.dataType == .legacyTransaction) != (tx.typeByte == nil) {
                throw .invalidSignData("data type and transaction envelope disagree")
            }
            let erc20: ERC20Call?
            do { erc20 = try ERC20Call(calldata: tx.data) } catch {
                throw .invalidSignData("ERC-20 calldata is malformed: \(error)")
            }
            if let txChain = tx.chainID {
                if let requested = request.chainID, requested != txChain {
                    refusals.append(.chainIDContradiction(request: requested, data: txChain))
                }
                chainID = txChain
            } else {
                refusals.append(.noChainID)
            }
            let fee: Wei
            do { fee = try tx.worstCaseFee() } catch { throw .invalidSignData("the fee overflows") }
            if fee > maxFee { refusals.append(.feeTooHigh(fee: fee, maximum: maxFee)) }
            lines += Self.transactionLines(tx, erc20: erc20, fee: fee, warnings: &warnings)
            content = .transaction(tx, erc20: erc20)
            hash = tx.signingHash
        case .typedData:
            let data: TypedData
            do {
                data = try TypedData(json: request.signData)
                hash = try data.signingHash()
            } catch { throw .invalidSignData("the EIP-712 data does not encode: \(error)") }
            if let domainChain = data.domain["chainId"], let requested = request.chainID {
                let text: String? =
                    switch domainChain {
                    case .number(let n), .string(let n): n
                    default: nil
                    }
                if let text, let value = try? UInt256(string: text), value != UInt256(requested) {
                    refusals.append(.chainIDContradiction(request: requested, data: value.uint64 ?? .max))
                }
            }
            lines.append(("Type", "EIP-712 \(data.primaryType)"))
            for (key, value) in Self.members(data.domain) { lines.append(("Domain \(key)", value)) }
            for (key, value) in Self.members(data.message) { lines.append((key, value)) }
            if data.isPermit { warnings.append("this is a token permit: it lets the spender move your tokens") }
            content = .typedData(data)
        case .personalMessage:
            let message = PersonalMessage(bytes: request.signData)
            lines.append(("Message", message.printableText ?? "0x" + Ethereum.Hex.encode(message.bytes)))
            content = .personalMessage(message)
            hash = message.signingHash
        }
        if let chainID {
            lines.insert(("Chain", Self.chainName(chainID)), at: 0)
        }
        lines.insert(("From", from.checksummed), at: chainID == nil ? 0 : 1)
        return EthereumReview(
            content: content, from: from, chainID: chainID, signingHash: hash, lines: lines, warnings: warnings,
            refusals: refusals)
    }

    /// Signs what `review` shows, with `v` as EIP-4527 wallets write it, with the key at `path` (or the imported
    /// key of `address`, as `review` chose it).
    ///
    /// - Throws: `EthereumSigningError.refused` when the review has refusals.
    public func sign(
        _ review: EthereumReview, path: DerivationPath, address: EthereumAddress? = nil
    ) throws(EthereumSigningError) -> EthereumSignature {
        guard review.refusals.isEmpty else { throw .refused(review.refusals) }
        let key = try signingKey(path: path, address: address)
        guard key.ethereumAddress == review.from else {
            throw .keyDerivation("the key changed between review and sign")
        }
        let signature: RecoverableSignature
        do { signature = try key.signRecoverable(digest: review.signingHash) } catch {
            throw .keyDerivation("\(error)")
        }
        switch review.content {
        case .transaction(let tx, _):
            do { return EthereumSignature(signature: signature, v: try tx.v(for: signature)) } catch {
                throw .invalidSignData("\(error)")
            }
        case .typedData, .personalMessage:
            return .message(signature)
        }
    }

    static func chainName(_ id: UInt64) -> String {
        EthereumReview.chainName(id).map { "\($0) (\(id))" } ?? "chain \(id)"
    }

    static func transactionLines(
        _ tx: EthereumTransaction, erc20: ERC20Call?, fee: Wei, warnings: inout [String]
    ) -> [(String, String)] {
        var lines: [(String, String)] = []
        if let to = tx.to {
            lines.append(("To", to.checksummed))
        } else {
            lines.append(("To", "(contract creation)"))
            warnings.append("this transaction creates a contract")
        }
        lines.append(("Value", "\(tx.value.etherString) ETH"))
        lines.append(("Nonce", "\(tx.nonce)"))
        lines.append(("Gas limit", "\(tx.gasLimit)"))
        switch tx.kind {
        case .legacy(let price), .accessList(let price):
            lines.append(("Gas price", "\(Wei(price).gweiString) gwei"))
        case .dynamicFee(let tip, let cap):
            lines.append(("Max fee", "\(Wei(cap).gweiString) gwei"))
            lines.append(("Priority fee", "\(Wei(tip).gweiString) gwei"))
        }
        lines.append(("Worst-case fee", "\(fee.etherString) ETH"))
        switch erc20 {
        case .transfer(let to, let amount)?:
            lines.append(("ERC-20", "transfer \(amount) base units to \(to.checksummed)"))
        case .approve(let spender, let amount)?:
            let unlimited = amount == .max
            lines.append(
                ("ERC-20", "approve \(unlimited ? "UNLIMITED" : "\(amount) base units") for \(spender.checksummed)"))
            if unlimited { warnings.append("unlimited token approval: the spender may move all your tokens") }
        case .transferFrom(let from, let to, let amount)?:
            lines.append(("ERC-20", "transferFrom \(from.checksummed) to \(to.checksummed), \(amount) base units"))
        case nil where !tx.data.isEmpty && tx.to != nil:
            lines.append(("Calldata", "selector 0x\(Ethereum.Hex.encode(tx.data.prefix(4))), \(tx.data.count) bytes"))
        case nil:
            break
        }
        return lines
    }

    /// Top-level members of a JSON object as display text.
    static func members(_ value: JSONValue) -> [(String, String)] {
        guard case .object(let members) = value else { return [] }
        return members.map { ($0.0, Self.text($0.1)) }
    }

    static func text(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): b ? "true" : "false"
        case .number(let n): n
        case .string(let s): s
        case .array(let items): "[" + items.map(text).joined(separator: ", ") + "]"
        case .object(let members): "{" + members.map { "\($0.0): \(text($0.1))" }.joined(separator: ", ") + "}"
        }
    }
}
