import Bitcoin
import Foundation

/// The one show → refuse-or-ask step of every request the signer answers (a PSBT, a Chance `multisig:` text, a
/// message, a multisig registration, a key export): nothing is approved unseen (docs/threat-model.md, "Approval
/// without a review").
///
/// The review is printed on stderr first, under every combination of `--json`, `--qr`, `--out` and stdin input
/// (stdout carries only the answer). Then a refusal stops (exit 4), else the question is asked unless `--yes`.
public enum ReviewGate {
    /// Where the answer to the question comes from.
    public enum Answer: Sendable {
        /// Standard input, whether or not it is a terminal (a script may pipe `y`).
        case standardInput
        /// The terminal only: without one on standard input, nothing is approved.
        case terminal
        /// The controlling terminal (`/dev/tty`): standard input carried the request itself.
        case controllingTerminal
    }

    /// Shows the review, then refuses or asks.
    ///
    /// `review` is printed (with `DisplayText.hiddenCharactersWarning` when `hiddenCharacters`); then with `refusals`
    /// it prints `refusedDocument` under `json` and leaves with exit 4; else, unless `yes`, asks `question` and leaves
    /// with exit 4 when the answer is not yes. `what` names the action in the messages ("signed", "registered"),
    /// `aftermath` is added to them ("; nothing stored").
    public static func run(
        review: String, hiddenCharacters: Bool = false, refusals: [String] = [], json: Bool, yes: Bool,
        question: String, what: String = "signed", aftermath: String = "", answer: Answer = .standardInput,
        refusedDocument: (() throws -> Void)? = nil
    ) throws {
        Diagnostics.print(review)
        if hiddenCharacters { Diagnostics.print("!!! " + DisplayText.hiddenCharactersWarning) }
        if !refusals.isEmpty {
            let message = "refused: " + refusals.map(DisplayText.clean).joined(separator: "; ")
            guard json, let refusedDocument else { throw CLIError(.refused, message) }
            // Under --json the verdict document is the one answer on stdout.
            try refusedDocument()
            Diagnostics.print("error: " + message)
            throw ExitStatus.refused.exitCode
        }
        guard !yes else { return }
        switch answer {
        case .standardInput:
            guard Prompt.confirm("\n" + question) else {
                throw CLIError(.refused, "not \(what): declined at the confirmation\(aftermath)")
            }
        case .terminal:
            guard isatty(STDIN_FILENO) == 1 else {
                throw CLIError(.refused, "not \(what): no terminal to confirm on (pass --yes)\(aftermath)")
            }
            guard Prompt.confirm("\n" + question) else {
                throw CLIError(.refused, "not \(what): declined at the confirmation\(aftermath)")
            }
        case .controllingTerminal:
            guard let confirmed = Prompt.confirmOnTerminal("\n" + question) else {
                throw CLIError(
                    .refused,
                    "not \(what): the request came on standard input and there is no terminal to confirm "
                        + "on (pass --yes)\(aftermath)")
            }
            guard confirmed else { throw CLIError(.refused, "not \(what): declined at the confirmation\(aftermath)") }
        }
    }
}
