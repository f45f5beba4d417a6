public import Bitcoin
import BitcoinCrypto
import Codecs
public import Ethereum
import Signer

/// Why an EIP-4527 request cannot even be read as a request for a key (invalid input, before any review).
public enum EthereumRequestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A step of the request's key path is a wildcard, a range or an index of 2^31 or more.
    case notAPlainPath
    /// The request's address field does not hold 20 bytes (how many it holds).
    case addressLength(Int)
    /// The sign-data cannot be reviewed (why).
    case invalidSignData(String)

    public var description: String {
        switch self {
        case .notAPlainPath: "the request's derivation path is not a plain path"
        case .addressLength: "the request's address is not 20 bytes"
        case .invalidSignData(let why): "invalid eth-sign-request: \(why)"
        }
    }
}

/// Why the signer does not sign an Ethereum request it could read (refused by policy).
public enum EthereumSignRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// This vault holds no key for the request (another seed, or no path and no imported key of its address).
    case noKey(EthereumRefusal)
    /// Signing failed after the review (the review's refusals, or the key).
    case notSigned(EthereumSigningError)

    public var description: String {
        switch self {
        case .noKey(let refusal): "refused: \(refusal)"
        case .notSigned(let error): "not signed: \(error)"
        }
    }
}

/// The signer's flow for one EIP-4527 `eth-sign-request` (docs/architecture.md section 10).
///
/// The request as it came →
/// the review (with the refusals) → the user's decision (made by the front end) → the signature, recorded in the
/// journal. It never prints or asks: the front end shows `review`, asks, then calls `sign()`.
public struct EthereumSignFlow: Sendable {
    /// One step of the request's `crypto-keypath`, as the wire holds it.
    public enum PathStep: Sendable, Equatable {
        /// A child index, hardened or not.
        case index(UInt32, hardened: Bool)
        /// A wildcard or a range: not a key the request can be signed with.
        case notAnIndex
    }

    /// The options of the decision: the fee ceiling, blind signing, and the `--allow-*`/override flags for the journal.
    public struct Options: Sendable {
        /// The highest worst-case fee signed.
        public var maxFee: Wei
        /// Sign what cannot be shown.
        public var allowBlind: Bool
        /// Air-gap overrides given, recorded in the journal with `--allow-blind`.
        public var overrides: [String]

        /// Options from their parts.
        public init(
            maxFee: Wei = EthereumSigningSession.defaultMaxFee, allowBlind: Bool = false, overrides: [String] = []
        ) {
            self.maxFee = maxFee
            self.allowBlind = allowBlind
            self.overrides = overrides
        }
    }

    /// The request in the session's terms.
    public let request: EthereumSigningSession.Request
    /// The review the user reads, the imported key's line added when one signs.
    public let review: EthereumReview
    let session: EthereumSigningSession
    let vault: UnlockedVault
    let options: Options

    /// The key path from the wire's steps.
    ///
    /// - Throws: `EthereumRequestError.notAPlainPath` for a wildcard, a range, or an index of 2^31 or more.
    public static func path(_ steps: [PathStep]) throws(EthereumRequestError) -> DerivationPath {
        var children: [ChildNumber] = []
        for step in steps {
            guard case .index(let index, let hardened) = step,
                let child = try? ChildNumber(index: index, hardened: hardened)
            else { throw .notAPlainPath }
            children.append(child)
        }
        do { return try DerivationPath(children) } catch { throw .notAPlainPath }
    }

    /// The address the request names, if any.
    ///
    /// - Throws: `EthereumRequestError.addressLength` when it is not 20 bytes.
    public static func address(_ bytes: [UInt8]?) throws(EthereumRequestError) -> EthereumAddress? {
        guard let bytes else { return nil }
        do { return try EthereumAddress(bytes: bytes) } catch { throw .addressLength(bytes.count) }
    }

    /// The request as the wire holds it, read: its path plain, its address 20 bytes.
    ///
    /// - Throws: `EthereumRequestError.notAPlainPath`, `.addressLength`.
    public static func request(
        signData: [UInt8], dataType: EthereumSigningSession.Request.DataType, chainID: UInt64?, path steps: [PathStep],
        address: [UInt8]?, origin: String?
    ) throws(EthereumRequestError) -> EthereumSigningSession.Request {
        EthereumSigningSession.Request(
            signData: signData, dataType: dataType, chainID: chainID, path: try path(steps),
            address: try Self.address(address), origin: origin)
    }

    /// Reviews `request` with the vault's keys (the seed's `master`, the imported Ethereum keys, the added tokens).
    ///
    /// - Throws: `EthereumSignRefusal.noKey` when this vault holds no key for it (another seed's fingerprint, or no
    ///   path and no imported key of its address), `EthereumRequestError.invalidSignData` when the data is not what
    ///   its type says.
    public init(
        _ request: EthereumSigningSession.Request, sourceFingerprint: UInt32?, vault: UnlockedVault,
        master: ExtendedPrivateKey, options: Options
    ) throws {
        var session = EthereumSigningSession(
            master: master, maxFee: options.maxFee,
            importedKeys: vault.importedKeys.filter { $0.chain == .ethereum }.map(\.key),
            allowBlind: options.allowBlind,
            tokens: vault.tokens + ClearSigningStore.tokens(texts: vault.clearSigningDescriptors))
        if !vault.clearSigningDescriptors.isEmpty {
            session.clearSigning = ClearSigningStore.registry(
                texts: vault.clearSigningDescriptors, tokens: vault.tokens)
        }
        if let refusal = session.keyRefusal(request, sourceFingerprint: sourceFingerprint) {
            throw EthereumSignRefusal.noKey(refusal)
        }
        let review: EthereumReview
        do { review = try session.review(request) } catch { throw EthereumRequestError.invalidSignData("\(error)") }
        self.request = request
        self.review = review.naming(importedKey: request.address.flatMap { vault.importedEthereumKey(address: $0) })
        self.session = session
        self.vault = vault
        self.options = options
    }

    /// The report of a refusal (the review and its reasons), for `--json`.
    public var refusedReport: EthereumSignReport { EthereumSignReport(review, verdict: "refused") }

    /// Signs what the review shows (after the user said yes) and records it in the journal.
    ///
    /// - Throws: `EthereumSignRefusal.notSigned` when the review has refusals or the key fails,
    ///   `AuditError`/`VaultError` when the journal cannot be written.
    public func sign() throws -> EthereumSignature {
        let signature: EthereumSignature
        do { signature = try session.sign(review, path: request.path, address: request.address) } catch {
            throw EthereumSignRefusal.notSigned(error)
        }
        try vault.recordEthereumSignature(
            signData: request.signData, review: review, signature: signature,
            allowFlags: (options.allowBlind ? ["--allow-blind"] : []) + options.overrides)
        return signature
    }

    /// The report of a signature, for `--json`.
    public func signedReport(_ signature: EthereumSignature, ur: String, written: [String]) -> EthereumSignReport {
        EthereumSignReport(
            review, verdict: "signed", signature: Hex.encode(signature.bytes), ur: ur, written: written)
    }
}

extension EthereumReview {
    /// The review with a line naming the imported key that signs (after "From"), so the user sees which key it is.
    func naming(importedKey: ImportedKey?) -> EthereumReview {
        guard let importedKey else { return self }
        var lines = lines
        let label = importedKey.label
        let at = lines.firstIndex { $0.label == "From" }.map { $0 + 1 } ?? 0
        lines.insert(.init("Key", "imported" + (label.isEmpty ? "" : " (\(label))")), at: at)
        var warnings = warnings
        if lines.contains(where: \.hiddenCharacters), !warnings.contains(DisplayText.hiddenCharactersWarning) {
            warnings.append(DisplayText.hiddenCharactersWarning)
        }
        return EthereumReview(
            content: content, from: from, chainID: chainID, signingHash: signingHash, lines: lines, warnings: warnings,
            refusals: refusals, call: call)
    }

    /// The kind of request, as `--json` names it.
    public var typeName: String {
        switch content {
        case .transaction: "eth-transaction"
        case .typedData: "eth-typed-data"
        case .personalMessage: "eth-personal-message"
        }
    }
}

/// `sign --json` for an eth-sign-request: the review, the verdict, and when signed the signature and the answer.
public struct EthereumSignReport: Encodable, Sendable {
    /// One review line.
    public struct Line: Encodable, Sendable {
        let label: String
        /// The value as the request holds it (hidden characters kept; the terminal review shows them escaped).
        let value: String
        let hiddenCharacters: Bool

        enum CodingKeys: String, CodingKey {
            case label, value
            case hiddenCharacters = "hidden_characters"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(label, forKey: .label)
            try container.encode(value, forKey: .value)
            if hiddenCharacters { try container.encode(true, forKey: .hiddenCharacters) }
        }
    }
    let verdict: String
    let type: String
    let chainID: UInt64?
    let from: String
    let review: [Line]
    let warnings: [String]
    let refusals: [String]
    let hiddenCharacters: Bool
    let signature: String?
    let ur: String?
    let written: [String]

    init(
        _ review: EthereumReview, verdict: String, signature: String? = nil, ur: String? = nil, written: [String] = []
    ) {
        self.verdict = verdict
        self.type = review.typeName
        self.chainID = review.chainID
        self.from = review.from.checksummed
        self.review = review.lines.map { .init(label: $0.label, value: $0.data, hiddenCharacters: $0.hiddenCharacters) }
        self.warnings = review.warnings
        self.refusals = review.refusals.map(\.description)
        self.hiddenCharacters = review.hiddenCharacters
        self.signature = signature
        self.ur = ur
        self.written = written
    }

    enum CodingKeys: String, CodingKey {
        case verdict, type, from, review, warnings, refusals, signature, ur, written
        case chainID = "chain_id"
        case hiddenCharacters = "hidden_characters"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(type, forKey: .type)
        try container.encode(chainID, forKey: .chainID)  // null: valid on every chain
        try container.encode(from, forKey: .from)
        try container.encode(review, forKey: .review)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(refusals, forKey: .refusals)
        try container.encode(hiddenCharacters, forKey: .hiddenCharacters)
        try container.encodeIfPresent(signature, forKey: .signature)
        try container.encodeIfPresent(ur, forKey: .ur)
        try container.encode(written, forKey: .written)
    }
}
