// FuzzPSBT: libFuzzer target for the PSBT parser (BIP174/BIP370 and the 371/373 fields), the first code that sees a
// PSBT from outside. Every input must end in a PSBT or a typed PSBTError, never a crash or a sanitizer report; and
// whatever parses must serialize back to the very same bytes and parse again to an equal value. The operations a
// signer runs next (unsigned transaction, typed field views, finalizer, extractor, signer, combiner) run on it too.
// Build and run: see docs/fuzzing.md (the libraries need -sanitize=address and -sanitize-coverage on the command
// line, which Fuzz/Package.swift cannot set for a dependency).
import Bitcoin
import BitcoinCrypto
import Signer

private let provider: StaticKeyProvider? = {
    guard let key = try? PrivateKey(secret: SecretBytes(copying: [UInt8](repeating: 0, count: 31) + [3])) else {
        return nil
    }
    return StaticKeyProvider(keys: [key])
}()

extension FuzzTargets {
    /// One input of FuzzPSBT.
    public static func psbt(_ bytes: [UInt8]) {
        guard let provider else { preconditionFailure("the fixed key does not load") }
        guard let psbt = try? PSBT(serialized: bytes) else { return }
        let serialized = psbt.serialized()
        precondition(serialized == bytes, "a parsed PSBT does not serialize back to its input")
        guard let reparsed = try? PSBT(serialized: serialized) else {
            preconditionFailure("a serialized PSBT does not parse again")
        }
        precondition(reparsed == psbt, "a re-parsed PSBT differs from the first parse")

        _ = try? psbt.unsignedTransaction()
        for input in psbt.inputs {
            _ = (input.nonWitnessUTXO, input.witnessUTXO, input.partialSignatures, input.bip32Derivations)
            _ = (input.finalScriptWitness, input.tapScriptSignatures, input.tapLeafScripts, input.tapBIP32Derivations)
            _ = (input.tapInternalKey, input.previousOutpoint, input.sighashType)
        }
        for output in psbt.outputs {
            _ = (output.bip32Derivations, output.amount, output.tapTree, output.tapBIP32Derivations)
        }
        var copy = psbt
        if copy.finalize() { _ = try? copy.extractTransaction() }
        let signer = PSBTSigner(
            options: SigningOptions(allowNonDefaultSighash: true, allowMissingPreviousTransaction: true))
        _ = try? signer.sign(psbt, with: provider)
        _ = try? psbt.combined(with: [copy])
    }
}
