import Bitcoin
import BitcoinCrypto

extension DescriptorKey {
    /// Parses a BIP390 `musig(KEY,…)` key expression, with optional steps after it, that starts at `position`.
    ///
    /// Participants are compressed or extended keys (with origins and steps of their own); either they may range
    /// (`/*`) or the `musig()` may have steps, which must be unhardened and need extended-key participants.
    /// - Throws: `DescriptorError.notAllowed` outside `tr()` or when nested, `.invalidKey` for an empty or x-only
    ///   participant, `.hardenedDerivationAfterMuSig`, `.muSigParticipantNotExtended`, `.rangedMuSigParticipant`,
    ///   `.multipleMultipathSteps`, `.mismatchedMultipathLengths`, or any error of a participant key.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0390.mediawiki
    static func parseMuSig(_ text: Substring, position: Int, context: Context) throws(DescriptorError) -> DescriptorKey
    {
        guard context == .taproot else {
            throw .notAllowed(function: "musig", context: "a key outside tr() and rawtr()", position: position)
        }
        let open = "musig(".count
        let body = text.dropFirst(open)
        guard let close = body.firstIndex(where: { $0 == "(" || $0 == ")" }) else {
            throw .syntax(expected: "')' closing musig(", position: position + text.count)
        }
        guard body[close] == ")" else {
            let at = position + open + body.distance(from: body.startIndex, to: close)
            throw .notAllowed(function: "musig", context: "musig()", position: at)
        }
        var participants: [(key: DescriptorKey, position: Int)] = []
        var offset = position + open
        for part in body[..<close].split(separator: ",", omittingEmptySubsequences: false) {
            let key = try parse(part, position: offset, context: .taproot)
            if case .xOnly = key.material {
                throw .invalidKey(reason: "musig() participants must be 33-byte compressed keys", position: offset)
            }
            participants.append((key, offset))
            offset += part.count + 1
        }
        let suffix = body[body.index(after: close)...]
        let suffixPosition = position + open + body.distance(from: body.startIndex, to: close) + 1
        var steps: [Step] = []
        var wildcard = Wildcard.none
        if !suffix.isEmpty {
            guard suffix.first == "/" else {
                throw .syntax(expected: "'/' or the end of musig()", position: suffixPosition)
            }
            let parts = suffix.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
            (steps, wildcard) = try parseSteps(parts[...], position: suffixPosition + 1)
        }
        try validateMuSig(participants, steps: steps, wildcard: wildcard, position: position, suffix: suffixPosition)
        return DescriptorKey(origin: nil, material: .musig(participants.map(\.key)), steps: steps, wildcard: wildcard)
    }

    /// Checks the BIP390 rules that join a `musig()` and its participants.
    private static func validateMuSig(
        _ participants: [(key: DescriptorKey, position: Int)], steps: [Step], wildcard: Wildcard, position: Int,
        suffix: Int
    ) throws(DescriptorError) {
        let counts = Set(participants.compactMap(\.key.multipathCount))
        guard counts.count <= 1 else { throw .mismatchedMultipathLengths(position: position) }
        guard !steps.isEmpty || wildcard != .none else { return }
        let hardened = steps.contains { step in
            switch step {
            case .child(let number): number.isHardened
            case .multipath(let numbers): numbers.contains(where: \.isHardened)
            }
        }
        guard !hardened, wildcard != .hardened else { throw .hardenedDerivationAfterMuSig(position: suffix) }
        let ownMultipath = steps.contains { if case .multipath = $0 { true } else { false } }
        for (participant, at) in participants {
            guard case .extended = participant.material else { throw .muSigParticipantNotExtended(position: at) }
            guard !participant.isRanged else { throw .rangedMuSigParticipant(position: at) }
            guard !(ownMultipath && participant.multipathCount != nil) else {
                throw .multipleMultipathSteps(position: suffix)
            }
        }
    }

    /// The aggregate key of `musig()` at child `index` of branch `path`: the participants are derived (at `index`
    /// when they range), sorted (BIP327 KeySort) and aggregated (KeyAgg), and any steps after `musig()` are derived
    /// from the aggregate's BIP328 synthetic xpub.
    ///
    /// BIP390 requires KeySort after derivation and before aggregation, so the written order of the participants
    /// does not change the key (its test vectors only match with sorting); the text keeps the written order.
    ///
    /// - Throws: `DescriptorError.muSig` when aggregation fails, `.derivation`, `.indexOutOfRange`, or any error
    ///   of a participant key.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0390.mediawiki
    func muSigPublicKey(_ participants: [DescriptorKey], at index: UInt32, path: Int) throws(DescriptorError)
        -> PublicKey
    {
        var keys: [PublicKey] = []
        for participant in participants {
            keys.append(try participant.publicKey(at: index, path: path).key)
        }
        let aggregate: MuSigAggregateKey
        do {
            aggregate = try MuSigAggregateKey(participants: MuSigAggregateKey.sorted(keys))
        } catch {
            throw .muSig(error)
        }
        guard !steps.isEmpty || wildcard != .none else { return aggregate.publicKey }
        var numbers = Self.fixedPath(steps, branch: path)
        if wildcard == .normal {
            guard index < ChildNumber.hardenedOffset else { throw .indexOutOfRange(index) }
            numbers.append(ChildNumber(rawValue: index))
        }
        do {
            return try aggregate.extendedPublicKey().derive(DerivationPath(numbers)).publicKey
        } catch {
            throw .derivation(error)
        }
    }
}
