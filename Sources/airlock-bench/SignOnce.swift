import ArgumentParser
import Bitcoin
import Foundation
import SeedBackup
import Signer

/// `airlock-bench sign-once PSBT`: the work of `airlock-signer sign` after the vault is unlocked, once, for callgrind.
///
/// The signer itself cannot run under valgrind (its seccomp filter is installed before anything else, and valgrind
/// cannot follow seccomp), and its Argon2 unlock would dwarf the rest; so this runs exactly what `sign` runs between
/// the unlock and the write: parse, `SigningSession.review`, `SigningDecision.sign()`, the answer, serialize.
/// scripts/bench.d/sign-once-before.swift is the same harness over the code path before issue 13 (commit 00cdb31).
struct SignOnce: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-once",
        abstract: "Review and sign one PSBT of the BIP39 test mnemonic's regtest accounts, once (for callgrind).",
        discussion: """
            Examples:
              airlock-bench psbt --runs 1 --write-psbt /tmp/psbt
              valgrind --tool=callgrind airlock-bench sign-once /tmp/psbt/sign-p2wpkh-1445.psbt
            """)

    @Argument(help: "The PSBT file (binary).") var psbt: String

    func run() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: psbt)))
        let network = Network.regtest
        let master = try ExtendedPrivateKey(
            seed: try Mnemonic(phrase: AirlockBench.PSBTBench.mnemonic).seed(), network: network)
        let original = try PSBT(anyEncoding: bytes)
        let decision = try SigningSession(master: master, network: network, policy: SigningPolicy(network: network))
            .review(original)
        _ = decision.review.text
        guard decision.isApproved else { throw ValidationError("refused: \(decision.refusals)") }
        let signed = try decision.sign()
        let written = signed.answer().serialized()
        print("signed \(signed.signedInputs.count) of \(original.inputs.count) inputs, \(written.count) bytes")
    }
}
