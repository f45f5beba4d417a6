public import Bitcoin
public import BitcoinCrypto

/// The anti-exfil protocol's PSBT fields (docs/formats.md, "Anti-exfil PSBT fields"): per input and per public key,
/// proprietary records `0xFC` with identifier `ae` and a subtype, key data the 33-byte public key.
///
/// | subtype | value | written by |
/// |---|---|---|
/// | `0x00` host commitment | 32 bytes, TaggedSHA256("s2c/ecdsa/data", entropy) | the watcher (host) |
/// | `0x01` signer commitment | 33 bytes, R1 compressed | the signer |
/// | `0x02` host entropy | 32 bytes, the entropy revealed | the watcher, after the signer committed |
///
/// Taproot inputs get no fields: no anti-exfil protocol for BIP340 signatures is published yet.
public enum AntiExfilPSBT {
    /// The proprietary identifier.
    public static let identifier: [UInt8] = Array("ae".utf8)

    /// The record subtypes.
    public enum Subtype: UInt8, Sendable {
        case hostCommitment = 0x00
        case signerCommitment = 0x01
        case hostEntropy = 0x02

        var valueLength: Int { self == .signerCommitment ? 33 : 32 }
    }

    /// The key data of a record: compact-size length of the identifier, the identifier, the subtype, the key.
    public static func keyData(_ subtype: Subtype, publicKey: [UInt8]) -> [UInt8] {
        [UInt8(identifier.count)] + identifier + [subtype.rawValue] + publicKey
    }

    /// The value of `subtype` for `publicKey` in `map`, nil when absent.
    public static func value(_ subtype: Subtype, publicKey: [UInt8], in map: PSBTMap) -> [UInt8]? {
        map.entry(PSBTKeyType.Input.proprietary, keyData: keyData(subtype, publicKey: publicKey))?.value
    }

    /// Sets `subtype` for `publicKey` in `map`.
    public static func set(_ subtype: Subtype, publicKey: [UInt8], value: [UInt8], in map: inout PSBTMap) {
        map.set(PSBTKeyType.Input.proprietary, keyData: keyData(subtype, publicKey: publicKey), value: value)
    }

    /// The public keys of `map` that carry a record of `subtype`.
    public static func keys(_ subtype: Subtype, in map: PSBTMap) -> [[UInt8]] {
        let prefix = [UInt8(identifier.count)] + identifier + [subtype.rawValue]
        return map.entries(PSBTKeyType.Input.proprietary).compactMap { entry in
            entry.keyData.starts(with: prefix) ? Array(entry.keyData.dropFirst(prefix.count)) : nil
        }
    }

    /// Whether any input carries a host commitment.
    public static func isRequested(_ psbt: PSBT) -> Bool {
        psbt.inputs.contains { !keys(.hostCommitment, in: $0.map).isEmpty }
    }

    /// Whether this is the first round: some host commitment has no entropy revealed beside it.
    ///
    /// The signer then answers with its commitments and signs nothing (taproot inputs included).
    public static func isCommitRound(_ psbt: PSBT) -> Bool {
        psbt.inputs.contains { input in
            keys(.hostCommitment, in: input.map).contains { value(.hostEntropy, publicKey: $0, in: input.map) == nil }
        }
    }

    /// The lines the signer's review adds for an anti-exfil request (nil for an ordinary PSBT).
    public static func reviewNotes(_ psbt: PSBT) -> [String] {
        guard isRequested(psbt) else { return [] }
        var notes =
            isCommitRound(psbt)
            ? [
                "anti-exfil, round 1 of 2: the watcher added its nonce commitments; this answer holds the signer's "
                    + "commitments and NO signature. Take it to the watcher (airlock-watcher finalize), then sign "
                    + "the PSBT it writes"
            ]
            : [
                "anti-exfil, round 2 of 2: the watcher revealed its entropy; the signatures use the nonces committed "
                    + "to in round 1, and the watcher checks each one"
            ]
        if psbt.inputs.contains(where: { $0.witnessUTXO?.scriptPubKey.isTaproot == true }) {
            notes.append(
                "anti-exfil does not cover taproot inputs (no published protocol for Schnorr signatures): they are "
                    + "signed as usual in round 2")
        }
        return notes
    }

    /// The signer's part for one ECDSA key of an input: without a host commitment the ordinary signature; with a
    /// host commitment and no entropy the signer commitment written into `map` and no signature (nil); with the
    /// entropy revealed the signer commitment (again, the same) and the anti-exfil signature.
    ///
    /// - Throws: `AntiExfilError.malformedField` for a record of the wrong length; `KeyError` from signing.
    public static func sign(
        _ key: PrivateKey, publicKey: [UInt8], digest: [UInt8], map: inout PSBTMap, grindLowR: Bool
    ) throws -> ECDSASignature? {
        guard let hostCommitment = value(.hostCommitment, publicKey: publicKey, in: map) else {
            return try key.signECDSA(digest: digest, grindLowR: grindLowR)
        }
        guard hostCommitment.count == 32 else { throw AntiExfilError.malformedField("host commitment") }
        guard let entropy = value(.hostEntropy, publicKey: publicKey, in: map) else {
            let commitment = try AntiExfil.signerCommitment(key: key, digest: digest, hostCommitment: hostCommitment)
            set(.signerCommitment, publicKey: publicKey, value: commitment.compressed, in: &map)
            return nil
        }
        guard entropy.count == 32 else { throw AntiExfilError.malformedField("host entropy") }
        let commitment = try AntiExfil.signerCommitment(
            key: key, digest: digest, hostCommitment: AntiExfil.hostCommitment(entropy: entropy))
        set(.signerCommitment, publicKey: publicKey, value: commitment.compressed, in: &map)
        return try AntiExfil.sign(key: key, digest: digest, entropy: entropy)
    }
}

/// Why an anti-exfil exchange stops.
public enum AntiExfilError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A record of the wrong length (which one): invalid input.
    case malformedField(String)
    /// A signature whose R is not the committed nonce tweaked by the host's entropy: refused.
    case signatureMismatch(input: Int)
    /// The signer's commitment changed between two rounds with the same entropy: refused.
    case commitmentChanged(input: Int)
    /// A signature for a key the signer never committed for: refused.
    case signedWithoutCommitment(input: Int)

    public var description: String {
        switch self {
        case .malformedField(let name): "the anti-exfil \(name) field has the wrong length"
        case .signatureMismatch(let input):
            "the signer's signature does not match its commitment: it may be leaking your keys (input \(input)). "
                + "Do not broadcast; do not use this signer again until you know why"
        case .commitmentChanged(let input):
            "the signer's commitment changed for the same entropy (input \(input)): a signer that answers a "
                + "retry with another nonce may be choosing among nonces to leak your keys. Do not sign with it again "
                + "until you know why"
        case .signedWithoutCommitment(let input):
            "the signer's signature does not match its commitment: it may be leaking your keys (input \(input) was "
                + "signed before the signer committed to its nonce)"
        }
    }
}

extension Script {
    var isTaproot: Bool {
        if case .p2tr = template { return true }
        return false
    }
}
