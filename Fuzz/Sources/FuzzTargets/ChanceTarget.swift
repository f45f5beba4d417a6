// FuzzChance: feeds libFuzzer input to the Chance wallet multisig: text parser (docs/architecture.md section 3) and
// to the previous-transaction file reader `sign --prev-tx` uses. A text that parses must print back to a text that
// parses to the same value, convert to a PSBT and back unchanged, and combine with itself unchanged. Thrown errors are
// expected; crashes and sanitizer reports are bugs.
import Bitcoin
import Chance

extension FuzzTargets {
    /// One input of FuzzChance.
    public static func chance(_ bytes: [UInt8]) {
        _ = try? ChanceMultisig.transactions(fileBytes: bytes)
        guard let text = String(validating: bytes, as: UTF8.self), let parsed = try? ChanceMultisig(string: text)
        else { return }
        precondition((try? ChanceMultisig(string: parsed.description)) == parsed, "a parsed text did not print back")
        if let psbt = try? parsed.psbt() {
            precondition((try? ChanceMultisig(psbt: psbt)) == parsed, "a text did not survive the PSBT round trip")
        }
        precondition((try? parsed.combined(with: [parsed])) == parsed, "a text combined with itself changed")
        _ = try? parsed.finalTransaction()
    }
}
