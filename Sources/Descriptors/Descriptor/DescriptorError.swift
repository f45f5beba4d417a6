import Bitcoin

/// Errors from parsing an output script descriptor or deriving its scripts; positions are character offsets into the
/// descriptor text (0-based).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki
public enum DescriptorError: Error, Equatable, Sendable {
    /// A character outside the descriptor character set (which the checksum covers), with its position.
    case invalidCharacter(Character, position: Int)
    /// A `#` checksum that is not 8 characters, with the length found.
    case invalidChecksumLength(Int)
    /// The checksum does not match: the expected and the given one.
    case checksumMismatch(expected: String, found: String)
    /// A checksum was required but the descriptor has none.
    case missingChecksum
    /// The text does not follow the grammar: what was expected, and where.
    case syntax(expected: String, position: Int)
    /// A name before `(` that is no descriptor function.
    case unknownFunction(String, position: Int)
    /// A function used where the rules forbid it (e.g. `wpkh` in `wsh`, `sh` not at the top, `combo` nested,
    /// `multi_a` outside `tr`), with the context it appeared in.
    case notAllowed(function: String, context: String, position: Int)
    /// A key expression that is no hex public key, WIF key or extended key: the reason and where it starts.
    case invalidKey(reason: String, position: Int)
    /// An uncompressed public key where only compressed keys are allowed (segwit v0 and taproot).
    case uncompressedKey(position: Int)
    /// A 32-byte x-only key outside `tr()`.
    case xOnlyKeyOutsideTaproot(position: Int)
    /// A key origin `[fingerprint/path]` that is malformed: the reason and where.
    case invalidKeyOrigin(reason: String, position: Int)
    /// A derivation step that is not an index below 2^31 with an optional `h` or `'`, or a misplaced `*`.
    case invalidDerivationStep(String, position: Int)
    /// Derivation steps after a key that cannot have them (hex or WIF keys).
    case derivationOnNonExtendedKey(position: Int)
    /// More than one `<…;…>` multipath step in one key expression.
    case multipleMultipathSteps(position: Int)
    /// Multipath steps of different lengths in one descriptor.
    case mismatchedMultipathLengths(position: Int)
    /// A multisig threshold that is not a decimal number.
    case invalidThreshold(String, position: Int)
    /// A threshold outside 1…number of keys.
    case thresholdOutOfRange(threshold: Int, keys: Int, position: Int)
    /// More keys than the context allows (3 in bare multisig, 15 in P2SH, 20 in P2WSH, 999 in multi_a).
    case tooManyKeys(count: Int, maximum: Int, position: Int)
    /// `raw()` content that is not hex.
    case invalidHex(position: Int)
    /// `addr()` content that is no valid address.
    case invalidAddress(position: Int)
    /// A taproot script tree deeper than 128.
    case tapTreeTooDeep(position: Int)
    /// Text after the end of the descriptor.
    case trailingCharacters(position: Int)
    /// Derivation steps after `musig()` that are hardened (`/1h`, `/*h`): the aggregate has no private key (BIP390).
    case hardenedDerivationAfterMuSig(position: Int)
    /// A `musig()` with derivation steps after it has a participant that is no extended key (BIP390).
    case muSigParticipantNotExtended(position: Int)
    /// A `musig()` with derivation steps after it has a ranged participant (`/*`); only one of them may range (BIP390).
    case rangedMuSigParticipant(position: Int)
    /// Aggregating the `musig()` participants failed (BIP327 KeyAgg).
    case muSig(MuSigError)
    /// A miniscript inside `wsh()` that does not parse, type-check or is not sane (positions in the descriptor text).
    indirect case miniscript(MiniscriptError)
    /// Deriving a key failed: hardened derivation from an extended public key, or an invalid child.
    case derivation(BIP32Error)
    /// A multipath descriptor was asked for scripts of a path it does not have.
    case pathOutOfRange(path: Int, count: Int)
    /// A child index at or above 2^31 (or hardened-marked) was asked of a ranged descriptor.
    case indexOutOfRange(UInt32)
    /// The script has no address form (`pk`, bare `multi`, non-standard `raw`).
    case noAddress
    /// The descriptor produces several scripts (`combo`), so no single script or address can be given.
    case multipleScripts
}
