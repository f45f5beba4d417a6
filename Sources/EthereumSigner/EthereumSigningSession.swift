public import Bitcoin
public import BitcoinCrypto
public import ClearSigning
import Codecs
public import Ethereum
import Signer

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
        /// Who asks, as the request names it (a dApp's name or URL: untrusted text, shown escaped).
        public var origin: String?

        /// A request from its fields.
        public init(
            signData: [UInt8], dataType: DataType, chainID: UInt64?, path: DerivationPath, address: EthereumAddress?,
            origin: String? = nil
        ) {
            self.signData = signData
            self.dataType = dataType
            self.chainID = chainID
            self.path = path
            self.address = address
            self.origin = origin
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
    /// Sign what cannot be shown (`--allow-blind`): unreadable or 32-byte messages, calldata the signer cannot decode.
    public var allowBlind: Bool
    /// The tokens the user added (`token add`), before the built-in list.
    public var tokens: [EthereumToken]
    /// The ERC-7730 descriptors the vault holds: a call or message one of them matches is shown in its words.
    public var clearSigning: ClearSigningRegistry?

    /// A session over `master` (and the vault's imported Ethereum keys) refusing fees above `maxFee`.
    public init(
        master: ExtendedPrivateKey, maxFee: Wei = defaultMaxFee, importedKeys: [PrivateKey] = [],
        allowBlind: Bool = false, tokens: [EthereumToken] = []
    ) {
        self.master = master
        self.maxFee = maxFee
        self.importedKeys = importedKeys
        self.allowBlind = allowBlind
        self.tokens = tokens
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

    /// The refusal of a request this vault holds no key for, decided before anything is decoded.
    ///
    /// A request naming another seed's fingerprint (when no imported key has its address), or naming no derivation path and no
    /// imported key's address. Nil when a key can be found.
    public func keyRefusal(_ request: Request, sourceFingerprint: UInt32?) -> EthereumRefusal? {
        if importedKey(address: request.address) != nil { return nil }
        if let sourceFingerprint, sourceFingerprint != master.fingerprint.value {
            return .otherSeed(
                request: String(sourceFingerprint, radix: 16).leftPadded(to: 8), vault: master.fingerprint.hexString)
        }
        if request.path.components.isEmpty { return .noKey(address: request.address) }
        return nil
    }

    /// Decodes the request and decides: the review lists what it does and any refusal.
    ///
    /// Every text from the request (names, values, messages, the origin) is shown through `DisplayText`; when any
    /// held hidden characters the review says so. What cannot be shown (an unreadable or 32-byte message, calldata
    /// the signer does not decode) is refused unless `allowBlind`.
    ///
    /// - Throws: `EthereumSigningError.invalidSignData` when the data is not what its type says,
    ///   `.keyDerivation`.
    public func review(_ request: Request) throws(EthereumSigningError) -> EthereumReview {
        let from = try signingKey(path: request.path, address: request.address).ethereumAddress
        var refusals: [EthereumRefusal] = []
        var warnings: [String] = []
        var lines: [EthereumReview.Line] = []
        var call: String?
        if let expected = request.address, expected != from {
            refusals.append(.addressMismatch(requested: expected, derived: from))
        }
        let content: EthereumReview.Content
        let hash: [UInt8]
        var chainLine: EthereumReview.Line?
        var chainID: UInt64?
        switch request.dataType {
        case .legacyTransaction, .typedTransaction:
            let tx: EthereumTransaction
            do { tx = try EthereumTransaction(unsignedSerialized: request.signData) } catch {
                throw .invalidSignData("the transaction does not parse: \(error)")
            }
            if (request.dataType == .legacyTransaction) != (tx.typeByte == nil) {
                throw .invalidSignData("data type and transaction envelope disagree")
            }
            let decoded: ContractCall?
            do { decoded = try ContractCall(calldata: tx.data) } catch {
                throw .invalidSignData("the token call in the calldata is malformed: \(error)")
            }
            chainID = request.chainID
            if let txChain = tx.chainID {
                if let requested = request.chainID, requested != txChain {
                    refusals.append(.chainIDContradiction(request: requested, data: txChain))
                }
                chainID = txChain
            } else {
                refusals.append(.noChainID)
            }
            if let chainID { chainLine = .init("Chain", Self.chainName(chainID)) }
            let fee: Wei
            do { fee = try tx.worstCaseFee() } catch { throw .invalidSignData("the fee overflows") }
            if fee > maxFee { refusals.append(.feeTooHigh(fee: fee, maximum: maxFee)) }
            var review = CallReview(from: from, chainID: chainID, tokens: tokens)
            review.transaction(tx, call: decoded, fee: fee)
            lines += review.lines
            warnings += review.warnings
            call = review.summary
            var clear: ClearCall?
            var clearFailure: String?
            if decoded == nil, let to = tx.to, !tx.data.isEmpty, let clearSigning, let chainID {
                let input = CallInput(chainID: chainID, to: to, value: tx.value.amount, from: from, data: tx.data)
                do { clear = try clearSigning.render(input) } catch { clearFailure = "\(error)" }
                if let clear {
                    lines += Self.clearLines(clear)
                    warnings += clear.warnings
                    call = "clear signing: " + (clear.interpolatedIntent ?? clear.intent)
                }
            }
            if let clear, clear.hasBlindPart {
                let what = "an inner call has no descriptor, so part of this transaction cannot be shown in words"
                if allowBlind {
                    warnings.append("blind signing (--allow-blind): \(what)")
                } else {
                    refusals.append(.blind(what))
                }
            } else if clear == nil, decoded == nil, tx.to != nil, !tx.data.isEmpty {
                let what =
                    "the calldata (selector 0x\(Hex.encode(tx.data.prefix(4))), \(tx.data.count) bytes) "
                    + "calls a function the signer cannot decode"
                    + (clearFailure.map { " (a stored descriptor matched, but: \($0))" } ?? "")
                if allowBlind {
                    warnings.append("blind signing (--allow-blind): \(what)")
                } else {
                    refusals.append(.blind(what))
                }
            }
            content = .transaction(tx, call: decoded)
            hash = tx.signingHash
        case .typedData:
            let data: TypedData
            let domainChain: UInt256?
            do {
                data = try TypedData(json: request.signData)
                hash = try data.signingHash()
                domainChain = try data.domainChainID()
            } catch { throw .invalidSignData("the EIP-712 data is invalid: \(error)") }
            // The chain shown is the signed domain's: the request's own chain-id field is not signed.
            if let domainChain {
                let value = domainChain.uint64
                if let requested = request.chainID, value != requested {
                    refusals.append(.chainIDContradiction(request: requested, data: value ?? .max))
                }
                chainID = value
                chainLine = .init("Chain", value.map(Self.chainName) ?? "chain \(domainChain)")
            } else {
                chainLine = .init("Chain", "valid on every chain (the signed domain names no chainId)")
                warnings.append(
                    "the signed data names no chain: the signature is valid on every chain where the contract exists")
            }
            lines.append(.init("Type", "EIP-712 \(data.primaryType)"))
            for (key, value) in Self.flatten(data.domain, prefix: "") { lines.append(.init("Domain \(key)", value)) }
            if data.primaryType != "EIP712Domain" {
                for (key, value) in Self.flatten(data.message, prefix: "") { lines.append(.init(key, value)) }
            }
            var review = CallReview(from: from, chainID: chainID, tokens: tokens)
            review.typedData(data)
            lines += review.lines
            warnings += review.warnings
            call = review.summary
            if let clearSigning {
                do {
                    if let clear = try clearSigning.render(data, from: from) {
                        lines += Self.clearLines(clear)
                        warnings += clear.warnings
                        call = "clear signing: " + (clear.interpolatedIntent ?? clear.intent)
                    }
                } catch {
                    warnings.append("a stored descriptor matched this message but cannot show it: \(error)")
                }
            }
            content = .typedData(data)
        case .personalMessage:
            let message = PersonalMessage(bytes: request.signData)
            let hex = "0x" + Hex.encode(message.bytes)
            if let text = message.readableText, message.bytes.count != 32 {
                lines.append(.init("Message", text, multiline: true))
            } else {
                lines.append(.init("Message (hex)", hex))
                let what =
                    message.bytes.count == 32
                    ? "the message is exactly 32 bytes, most likely the hash of something the signer cannot see "
                        + "(a transaction, an order)"
                    : "the message is not readable text"
                if allowBlind {
                    warnings.append("blind signing (--allow-blind): \(what)")
                } else {
                    refusals.append(.blind(what))
                }
            }
            content = .personalMessage(message)
            hash = message.signingHash
        }
        var head: [EthereumReview.Line] = []
        if let origin = request.origin { head.append(.init("Origin", origin)) }
        if let chainLine { head.append(chainLine) }
        head.append(.init("From", from.checksummed))
        lines = head + lines
        if lines.contains(where: \.hiddenCharacters) { warnings.append(DisplayText.hiddenCharactersWarning) }
        return EthereumReview(
            content: content, from: from, chainID: chainID, signingHash: hash, lines: lines, warnings: warnings,
            refusals: refusals, call: call)
    }

    /// The members of a JSON value as `(path, text)` pairs: nested structs and arrays flattened to
    /// `from.name`, `details[0].token`.
    static func flatten(_ value: JSONValue, prefix: String) -> [(String, String)] {
        switch value {
        case .object(let members):
            return members.flatMap { name, member in
                flatten(member, prefix: prefix.isEmpty ? name : prefix + "." + name)
            }
        case .array(let items) where !items.isEmpty:
            return items.enumerated().flatMap { i, item in flatten(item, prefix: "\(prefix)[\(i)]") }
        case .array: return [(prefix, "[]")]
        case .null: return [(prefix, "null")]
        case .bool(let flag): return [(prefix, flag ? "true" : "false")]
        case .number(let literal): return [(prefix, literal)]
        case .string(let text): return [(prefix, text)]
        }
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

    /// The review lines of a call shown through its descriptor: the intent, who the descriptor is for, and each
    /// field (nested calls indented); values from the request are escaped by `Line`.
    static func clearLines(_ clear: ClearCall, indent: String = "") -> [EthereumReview.Line] {
        var lines: [EthereumReview.Line] = [.init(indent + "Intent", clear.interpolatedIntent ?? clear.intent)]
        if indent.isEmpty, let owner = clear.owner { lines.append(.init("Descriptor by", owner)) }
        for field in clear.fields {
            if let nested = field.nested {
                lines.append(.init(indent + field.label, "(inner call)"))
                lines += clearLines(nested, indent: indent + "  ")
            } else {
                lines.append(.init(indent + field.label, field.rawValue + (field.warning.map { " (\($0))" } ?? "")))
            }
        }
        return lines
    }

    static func chainName(_ id: UInt64) -> String {
        EthereumReview.chainName(id).map { "\($0) (\(id))" } ?? "chain \(id)"
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
