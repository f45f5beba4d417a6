import ArgumentParser
import Bitcoin
import Foundation
import Signer

extension AirlockBench.PSBTBench {
    /// The whole `airlock-signer sign` after the vault is unlocked, timed: parse the file's bytes, review
    /// (`SigningSession.review`: the accounts, the ownership proof of every input and output, the fee and policy),
    /// render the review's text, sign the approved inputs (`SigningDecision.sign()`: the finalize probe included),
    /// choose the answer and serialize it.
    ///
    /// This is what `SignOnce` runs once for callgrind. The vault unlock (Argon2id, the `vault` section's row) and
    /// the file and journal writes are outside the clock: the master key is made before it starts. Each run starts
    /// from the bytes with a new session, so no run reuses what an earlier one derived or decoded.
    static func signCommand(
        _ master: ExtendedPrivateKey, name: String, bytes: [UInt8], inputs: Int, runs: Int, writeTo directory: String?
    ) throws -> Result {
        var times: [Double] = []
        var wallTimes: [Double] = []
        var whole: PSBT?
        for _ in 0..<runs {
            var signed: SignedPSBT?
            var written: [UInt8] = []
            let (cpu, wall) = try milliseconds {
                let parsed = try PSBT(anyEncoding: bytes)
                let decision = try SigningSession(
                    master: master, network: .regtest, policy: SigningPolicy(network: .regtest)
                ).review(parsed)
                _ = decision.review.text
                guard decision.isApproved else { throw ValidationError("\(name): refused: \(decision.refusals)") }
                let answer = try decision.sign()
                written = answer.answer().serialized()
                signed = answer
            }
            times.append(cpu)
            wallTimes.append(wall)
            guard let signed, signed.signedInputs.count == inputs, !written.isEmpty else {
                throw ValidationError("\(name): not every input was signed")
            }
            whole = signed.psbt
        }
        if let whole, let directory {
            // The whole signed PSBT (the answer written is trimmed, without the UTXOs a verifier needs), for
            // scripts/bench.d/psbt.py to verify every signature.
            try Data(whole.serialized()).write(
                to: URL(fileURLWithPath: directory).appendingPathComponent(name + ".signed.psbt"))
        }
        return Result(
            name: name, operation: "sign-command", inputs: inputs, bytes: bytes.count,
            medianMilliseconds: median(times), medianWallMilliseconds: median(wallTimes), runsMilliseconds: times)
    }
}
