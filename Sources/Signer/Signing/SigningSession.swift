import Bitcoin
import BitcoinCrypto
import Descriptors
import SilentPayments

/// Why a PSBT cannot even be reviewed: its transaction is malformed (exit 2, not a refusal).
public struct SigningSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// The signing decision (docs/architecture.md section 5, docs/architecture.md rule R7): from a PSBT, this vault's master key, network and
/// registered multisig wallets, and the policy, the review to show, the inputs the review approves and the refusals.
///
/// `SigningSession(…).review(psbt)` decides; `SigningDecision.sign()` signs exactly the approved inputs. The executable
/// prints the review, asks, and writes what `sign()` returns; it decides nothing.
public struct SigningSession: Sendable {
    public let master: ExtendedPrivateKey
    public let network: Network
    public let multisigWallets: [MultisigWallet]
    public let policy: SigningPolicy

    /// A session for the vault's `master` key on `network` with its registered `multisigWallets`, under `policy`.
    public init(
        master: ExtendedPrivateKey, network: Network, multisigWallets: [MultisigWallet] = [], policy: SigningPolicy
    ) {
        self.master = master
        self.network = network
        self.multisigWallets = multisigWallets
        self.policy = policy
    }

    /// A session for an unlocked vault.
    public init(vault: UnlockedVault, master: ExtendedPrivateKey, policy: SigningPolicy) {
        self.init(
            master: master, network: vault.network, multisigWallets: vault.header.multisigWallets, policy: policy)
    }

    /// Reviews `original`.
    ///
    /// - Throws: `SigningSessionError` when the transaction is malformed (its inputs sum past 21,000,000 BTC, or it
    ///   cannot be assembled).
    public func review(_ incoming: PSBT) throws(SigningSessionError) -> SigningDecision {
        // Silent payments (BIP375): this seed's ECDH shares added and the output scripts computed before the review,
        // which then reviews (and the answer carries) the PSBT with them.
        var silentPayment: SilentPaymentSigning.Outcome?
        if BIP375.hasSilentPayments(incoming) {
            silentPayment = try SilentPaymentSigning.prepare(incoming, master: master, network: network)
        }
        let original = silentPayment?.psbt ?? incoming
        // Origins that name an account key (a watch-only wallet restored from a bare xpub) are matched to this seed's
        // accounts for the review and signing; the PSBT written back keeps the sender's own.
        let (psbt, resolved) = AccountOriginResolver(master: master, network: network).resolving(original)
        try Self.checkInputSum(psbt)
        var accounts: [Descriptor] = []
        var accountPaths: [DerivationPath] = []
        var labels: [String] = []
        do {
            for account in try Self.spentAccounts(in: psbt, master: master, network: network) {
                guard let descriptor = account.descriptor else { continue }
                accounts.append(descriptor)
                accountPaths.append(account.origin.path)
                labels.append("\(account.script.rawValue) account \(account.account) (\(account.origin.path))")
            }
        } catch {
            throw SigningSessionError("cannot derive this vault's accounts: \(error)")
        }
        var walletNames: [Int: String] = [:]
        var cosignerNames: [Int: [String: String]] = [:]
        var policyWallets: [Int: MultisigWallet] = [:]
        for wallet in multisigWallets {
            guard let descriptor = try? wallet.descriptor else { continue }
            walletNames[accounts.count] = wallet.name
            cosignerNames[accounts.count] = Dictionary(
                wallet.cosignerNames.map { ($0.fingerprint, $0.name) }, uniquingKeysWith: { a, _ in a })
            if wallet.miniscriptPolicy != nil { policyWallets[accounts.count] = wallet }
            accounts.append(descriptor)
            labels.append(
                wallet.miniscriptPolicy != nil
                    ? "miniscript wallet '\(wallet.name)' \(wallet.scriptType)"
                    : "multisig '\(wallet.name)' \(wallet.threshold) of \(wallet.keyCount) \(wallet.scriptType)"
            )
        }
        // This seed's silent-payment change (BIP352 label 0): an account past the descriptors, named in the labels.
        var ownOutputs: [Int: PSBTAnalysis.Ownership] = [:]
        for (output, account) in silentPayment?.change ?? [:] {
            ownOutputs[output] = .ours(account: labels.count, branch: 1, index: BIP375.changeLabel)
            labels.append("silent-payment account \(account) (m/352h/\(network.coinType)h/\(account)h)")
        }
        let provider = SeedKeyProvider(master: master)
        // The ownership proof of the inputs takes the scripts of the keys derived here for signing (issue 33).
        let derived = DerivedScripts(
            psbt: psbt, accounts: accounts, paths: accountPaths, fingerprint: master.fingerprint
        ) { origin, taproot in
            guard let key = try? provider.derive(origin, keep: true) else { return nil }
            return (
                key.publicKey,
                taproot
                    ? try? provider.keyPathPair(key.privateKey, at: origin, merkleRoot: nil, keep: true).outputKey : nil
            )
        }
        var review: TransactionReview
        do {
            review = try TransactionReview(
                psbt, accounts: accounts, policy: policy, accountLabels: labels, ownOutputs: ownOutputs,
                derived: derived)
        } catch { throw SigningSessionError("invalid PSBT: \(error)") }
        review.thisVault = master.fingerprint
        if let silentPayment {
            review.notes += silentPayment.notes
            if let refusal = silentPayment.refusal { review.refuse(refusal) }
        }
        review.multisigWalletNames = walletNames
        review.multisigCosignerNames = cosignerNames
        // Inputs of a miniscript policy wallet: the path nSequence / nLockTime allow, who signed, what this adds.
        // Each wallet's policy (its keys checked against this vault's) is made once, not once per input.
        let policies = policyWallets.compactMapValues { try? MultisigPolicy($0, master: master, network: network) }
        for (index, input) in review.analysis.inputs.enumerated() where !input.isFinalized {
            guard case .ours(let account, _, _) = input.ownership, let wallet = policyWallets[account],
                let policy = policies[account],
                let descriptor = accounts.indices.contains(account) ? accounts[account] : nil,
                let match = psbt.miniscriptMatch(ofInput: index, descriptors: [descriptor]),
                let state = PolicyInputState.make(
                    psbt: psbt, index: index, match: match, wallet: wallet.name,
                    words: policy.policyWords(match.miniscript), provider: provider, thisVault: master.fingerprint,
                    cosignerNames: cosignerNames[account] ?? [:])
            else { continue }
            review.policyInputs.append(state)
        }
        var approved: [Int] = []
        var unregistered: [Int] = []
        for (index, input) in review.analysis.inputs.enumerated() where !input.isFinalized {
            switch input.ownership {
            case .ours:
                approved.append(index)
            case .foreign, .claimedButNotOurs, .ownOutsideSpentWallet:
                let psbtInput = psbt.inputs[index]
                guard Self.holdsKey(psbtInput, provider) else { continue }
                if Self.hasScript(psbtInput) || input.ownership == .foreign {
                    unregistered.append(index)
                } else {
                    review.refuse(.inputScriptMismatch(input: index))
                }
            }
        }
        if !unregistered.isEmpty {
            if policy.allowUnregistered {
                review.refusals.removeAll { $0 == .nothingToSign }
                approved = (approved + unregistered).sorted()
                review.notes.append(
                    "inputs \(unregistered.map(String.init).joined(separator: ", ")) spend a script of no registered "
                        + "wallet: signed anyway (--allow-unregistered); their change cannot be verified")
            } else {
                review.refuse(.unregisteredInputs(unregistered))
            }
        }
        if resolved > 0 {
            review.notes.append(
                "\(resolved) key origin(s) named an account key instead of this seed's master key (a watch-only "
                    + "wallet without key origins); matched to this seed's accounts by re-deriving each key")
        }
        return SigningDecision(
            original: original, psbt: psbt, resolvedOrigins: resolved, review: review, approvedInputs: approved,
            unregisteredInputs: unregistered, provider: provider,
            policyDescriptors: policyWallets.keys.sorted().map { accounts[$0] },
            pendingShares: silentPayment?.pendingInputs ?? [])
    }

    /// Sums the inputs' amounts: a sum past 21,000,000 BTC is a malformed transaction.
    static func checkInputSum(_ psbt: PSBT) throws(SigningSessionError) {
        guard let transaction = try? psbt.unsignedTransaction() else { return }
        var total = Amount.zero
        for (index, input) in psbt.inputs.enumerated() {
            let vout = Int(transaction.inputs[index].previousOutput.vout)
            let utxo =
                input.nonWitnessUTXO.flatMap { vout < $0.outputs.count ? $0.outputs[vout] : nil } ?? input.witnessUTXO
            guard let utxo else { continue }
            do { total = try total.adding(utxo.value) } catch {
                throw SigningSessionError("invalid PSBT: the inputs sum to more than 21,000,000 BTC")
            }
        }
    }

    /// The wallets being spent: this seed's single-signature accounts that the inputs' derivations name.
    ///
    /// BIP44/49/84/86 paths only. Outputs never add an account: change must belong to a wallet the inputs spend.
    public static func spentAccounts(in psbt: PSBT, master: ExtendedPrivateKey, network: Network) throws
        -> [AccountKey]
    {
        var seen: Set<[UInt32]> = []
        var accounts: [AccountKey] = []
        func consider(_ origin: KeyOrigin) throws {
            guard origin.fingerprint == master.fingerprint else { return }
            let components = origin.path.components
            guard components.count == 5, components[0].isHardened, components[1].isHardened,
                components[2].isHardened,
                let script = AccountScript.allCases.first(where: {
                    $0 != .wshMulti && $0.purpose == components[0].index
                }),
                seen.insert([components[0].rawValue, components[1].rawValue, components[2].rawValue]).inserted
            else { return }
            let account = try AccountKey(master: master, script: script, account: components[2].index, network: network)
            // Another coin type than the vault's network names no account of this vault.
            guard account.origin.path.components[1] == components[1] else { return }
            accounts.append(account)
        }
        for input in psbt.inputs {
            for derivation in input.bip32Derivations { try consider(derivation.origin) }
            for derivation in input.tapBIP32Derivations { try consider(derivation.origin) }
        }
        return accounts
    }

    /// Whether the input names a key this seed derives (at the origin it claims, with the public key it names).
    static func holdsKey(_ input: PSBTInput, _ provider: SeedKeyProvider) -> Bool {
        for derivation in input.bip32Derivations
        where
            ((try? provider.privateKey(for: .bip32(publicKey: derivation.publicKey, origin: derivation.origin)))
            ?? nil) != nil
        {
            return true
        }
        for derivation in input.tapBIP32Derivations
        where ((try? provider.privateKey(for: .taprootBIP32(key: derivation.key, origin: derivation.origin))) ?? nil)
            != nil
        {
            return true
        }
        return false
    }

    /// Whether the input spends a script beyond one key: a witness script, a redeem script other than P2WPKH, or
    /// taproot leaf scripts.
    static func hasScript(_ input: PSBTInput) -> Bool {
        if input.witnessScript != nil || !input.tapLeafScripts.isEmpty { return true }
        if input.tapBIP32Derivations.contains(where: { !$0.leafHashes.isEmpty }) { return true }
        if let redeem = input.redeemScript {
            if case .p2wpkh = redeem.template { return false }
            return true
        }
        return false
    }
}

/// What `SigningSession.review` decided.
public struct SigningDecision: Sendable {
    /// The PSBT as read (what is written back, with the new signatures).
    public let original: PSBT
    /// The PSBT reviewed and signed: account-key origins resolved to this seed's.
    public let psbt: PSBT
    /// How many key origins were resolved.
    public let resolvedOrigins: Int
    /// The review to show before asking.
    public let review: TransactionReview
    /// The inputs the review approves; nothing else is ever signed.
    ///
    /// This vault's inputs of the wallet being spent, and with `--allow-unregistered` inputs of unregistered scripts.
    public let approvedInputs: [Int]
    /// Inputs this vault holds a key for whose script no registered wallet describes.
    public let unregisteredInputs: [Int]
    let provider: SeedKeyProvider
    /// The registered miniscript policy wallets' descriptors (to tell whether the signatures complete an input).
    var policyDescriptors: [Descriptor] = []
    /// Inputs whose silent-payment ECDH share another signer must still add: while any is left nothing is signed
    /// and the answer is `original` with this vault's shares (BIP375).
    public var pendingShares: [Int] = []

    /// The question asked before signing, or before only adding silent-payment shares.
    public var question: String { pendingShares.isEmpty ? "Sign this transaction?" : BIP375.sharesQuestion }
    /// What was done when shares were added but nothing signed (nil otherwise).
    public var sharesAddedSummary: String? { pendingShares.isEmpty ? nil : BIP375.pendingSummary(pendingShares) }

    /// What stops signing; empty when the PSBT may be signed.
    public var refusals: [SigningRefusal] { review.refusals }

    /// Whether the policy lets this PSBT be signed.
    public var isApproved: Bool { refusals.isEmpty && !approvedInputs.isEmpty }

    /// Signs exactly the approved inputs.
    ///
    /// - Throws: `SigningSessionError` when the decision is a refusal, `PSBTError` from the signer's checks.
    public func sign() throws -> SignedPSBT {
        guard isApproved else {
            throw SigningSessionError(
                "refused: "
                    + (refusals.isEmpty ? "no input approved" : refusals.map(\.description).joined(separator: "; ")))
        }
        var options = review.policy.signingOptions
        options.allowMissingPreviousTransaction = review.policy.allowMissingPreviousTransaction
        let report = try PSBTSigner(options: options).sign(psbt, with: provider, only: Set(approvedInputs))
        guard !report.signedInputs.isEmpty else {
            throw SigningSessionError("nothing signed: no approved input could be signed with this vault's keys")
        }
        let signed = resolvedOrigins > 0 ? try original.combined(with: [report.psbt]) : report.psbt
        return SignedPSBT(psbt: signed, signedInputs: report.signedInputs, policies: policyDescriptors)
    }
}

/// A PSBT with this vault's signatures, and what to hand back (docs/architecture.md section 3).
public struct SignedPSBT: Sendable {
    /// The whole PSBT with the new signatures.
    public let psbt: PSBT
    /// The inputs signed.
    public let signedInputs: [Int]
    /// Whether every input can now be finalized (no other cosigner has to sign).
    public let isComplete: Bool
    /// The finalized PSBT when complete (miniscript inputs satisfied by their registered policy), else nil.
    public let finalized: PSBT?

    init(psbt: PSBT, signedInputs: [Int], policies: [Descriptor] = []) {
        self.psbt = psbt
        self.signedInputs = signedInputs
        var probe = psbt
        var complete = probe.finalize()
        if !complete, !policies.isEmpty {
            // Miniscript inputs: satisfied by their registered policy with the transaction's nSequence / nLockTime.
            complete = true
            for index in probe.inputs.indices where !probe.inputs[index].isFinalized {
                do { try probe.finalizeMiniscriptInput(index, descriptors: policies) } catch { complete = false }
            }
        }
        self.isComplete = complete
        self.finalized = complete ? probe : nil
    }

    /// What `sign` writes (docs/architecture.md section 3).
    ///
    /// The whole PSBT while other cosigners still have to sign it (they review and sign that copy); a trimmed answer
    /// (the transaction and signatures, for the coordinator that kept the PSBT) once this signature completes it.
    /// `full` forces the whole PSBT, `trim` the trimmed answer.
    public func answer(full: Bool = false, trim: Bool = false) -> PSBT {
        // A silent payment's shares and proofs go back whole: the coordinator verifies the scripts with them.
        if full || BIP375.hasSilentPayments(psbt) { return psbt }
        if trim || isComplete { return psbt.trimmedForCoordinator() }
        return psbt
    }
}
