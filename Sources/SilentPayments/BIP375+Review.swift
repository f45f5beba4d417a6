import Bitcoin
import BitcoinCrypto

/// What the signer's review says about a PSBT's silent payments, and which keys BIP352 counts: kept here so that the
/// Signer module only wires them in.
extension BIP375 {
    /// The private keys BIP352 counts for the inputs a signer holds, by input: the BIP32 key of a P2PKH, P2WPKH or
    /// P2SH-P2WPKH input, the tweaked output key of a taproot key-path input.
    ///
    /// `bip32` answers a PSBT_IN_BIP32_DERIVATION claim, `taproot` a PSBT_IN_TAP_BIP32_DERIVATION key-path claim
    /// (each returns the key only when it re-derives to the public key claimed).
    public static func signerKeys(
        _ psbt: PSBT, bip32: (PublicKey, KeyOrigin) -> PrivateKey?, taproot: (XOnlyPublicKey, KeyOrigin) -> PrivateKey?
    ) -> [Int: PrivateKey] {
        var keys: [Int: PrivateKey] = [:]
        for (index, input) in psbt.inputs.enumerated() {
            guard case .eligible(_, let isTaproot)? = try? inputKind(psbt, input: index) else { continue }
            if isTaproot {
                for derivation in input.tapBIP32Derivations where derivation.leafHashes.isEmpty {
                    guard input.tapInternalKey == nil || input.tapInternalKey == derivation.key,
                        let internalKey = taproot(derivation.key, derivation.origin),
                        let tweaked = try? internalKey.taprootTweaked(merkleRoot: input.tapMerkleRoot)
                    else { continue }
                    keys[index] = tweaked
                    break
                }
            } else {
                for derivation in input.bip32Derivations {
                    guard let key = bip32(derivation.publicKey, derivation.origin) else { continue }
                    keys[index] = key
                    break
                }
            }
        }
        return keys
    }

    /// The review's lines for each silent-payment output: amount, address, output index, whether its script was
    /// computed here, and this vault's own change (`change`: output index → BIP352 account).
    public static func reviewNotes(_ step: SignerStep, network: Network, change: [Int: UInt32]) -> [String] {
        outputs(of: step.psbt).map { output in
            let amount = output.amount.map { "\($0.btcString) BTC" } ?? "an unknown amount"
            let whose =
                change[output.index].map { "silent payment: this vault's own change, label 0, account \($0)" }
                ?? "silent payment"
            let script =
                step.complete
                ? "its taproot script was computed here from the inputs' ECDH shares, every share's proof verified"
                : "its script is computed once every input's ECDH share is in (every share present was verified)"
            return
                "\(amount) to \(output.address(network: network).encoded) (\(whose)), output \(output.index): \(script)"
        }
    }

    /// The line a signer shows when it added its shares but others are missing, so nothing was signed.
    public static func pendingSummary(_ pending: [Int]) -> String {
        let inputs = pending.map(String.init).joined(separator: ", ")
        return "shares added; \(pending.count) input(s) still need another signer's share (input(s) \(inputs)): "
            + "nothing is signed yet. Give this PSBT to the signer of those inputs, then bring the PSBT it writes "
            + "back here to sign (BIP375)"
    }

    /// The question asked before adding shares without signing.
    public static let sharesQuestion = "Add this vault's silent-payment shares (nothing is signed yet)?"
}
