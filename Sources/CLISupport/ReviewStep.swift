/// The one show → refuse-or-ask step of every request the signer answers (PSBT, Chance `multisig:`, EIP-4527
/// transactions, messages and typed data): the review reaches stderr before anything else happens, under every
/// combination of `--json`, `--qr`, `--out` and standard input, so nothing is approved unseen.
public enum ReviewStep {
    /// Prints `review` on stderr; then, when `refusals` is not empty, refuses (exit 4; under `--json` the
    /// `refusedDocument` is printed on stdout first, the one answer there); else asks `question` unless `yes`
    /// (declining exits 4).
    ///
    /// - Throws: `CLIError` (refused) or the refused exit status.
    public static func present(
        review: String, refusals: [String], json: Bool, yes: Bool, question: String,
        refusedDocument: () throws -> Void
    ) throws {
        Diagnostics.print(review)
        guard refusals.isEmpty else {
            let reasons = "refused: " + refusals.joined(separator: "; ")
            guard json else { throw CLIError(.refused, reasons) }
            try refusedDocument()
            Diagnostics.print("error: " + reasons)
            throw ExitStatus.refused.exitCode
        }
        if !yes {
            guard Prompt.confirm("\n" + question) else {
                throw CLIError(.refused, "not signed: declined at the confirmation")
            }
        }
    }
}
