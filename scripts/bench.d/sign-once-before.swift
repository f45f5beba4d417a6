// The `airlock-bench sign-once` harness over the signing path as it was before issue 13 (commit 00cdb31), for the
// callgrind comparison in docs/benchmarks.md. Copy it into Sources/airlock-bench/ of that commit, add `SignOnce.self`
// to AirlockBench's subcommands, build with `swift build -c release --product airlock-bench`. Its body is the old
// `airlock-signer sign` between the unlock and the write (Sources/airlock-signer/Commands/Sign.swift at 00cdb31).
import ArgumentParser
import Bitcoin
import Foundation
import Signer

struct SignOnce: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sign-once")

    @Argument var psbt: String

    func run() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: psbt)))
        let network = Network.regtest
        let master = try ExtendedPrivateKey(seed: try Mnemonic(phrase: AirlockBench.PSBTBench.mnemonic).seed(), network: network)
        let original = try PSBT(anyEncoding: bytes)
        let (psbt, resolved) = AccountOriginResolver(master: master, network: network).resolving(original)
        let policy = SigningPolicy(network: network)
        let accounts = try Self.singleSigAccounts(in: psbt, master: master, network: network)
        let review = try TransactionReview(psbt, accounts: accounts, policy: policy)
        let provider = SeedKeyProvider(master: master)
        _ = try Self.unregisteredInputs(psbt, review: review, provider: provider)
        _ = review.text
        guard review.refusals.isEmpty else { throw ValidationError("refused: \(review.refusals)") }
        let report = try PSBTSigner(options: policy.signingOptions).sign(psbt, with: provider)
        let signed = resolved > 0 ? try original.combined(with: [report.psbt]) : report.psbt
        let written = signed.trimmedForCoordinator().serialized()
        print("signed \(report.signedInputs.count) of \(original.inputs.count) inputs, \(written.count) bytes")
    }

    static func singleSigAccounts(in psbt: PSBT, master: ExtendedPrivateKey, network: Network) throws -> [Descriptor] {
        var origins: [KeyOrigin] = []
        for input in psbt.inputs {
            origins += input.bip32Derivations.map(\.origin) + input.tapBIP32Derivations.map(\.origin)
        }
        for output in psbt.outputs {
            origins += output.bip32Derivations.map(\.origin) + output.tapBIP32Derivations.map(\.origin)
        }
        var seen: Set<String> = []
        var accounts: [Descriptor] = []
        for origin in origins where origin.fingerprint == master.fingerprint {
            let components = origin.path.components
            guard components.count == 5, components[0].isHardened, components[2].isHardened,
                let script = AccountScript.allCases.first(where: { $0 != .wshMulti && $0.purpose == components[0].index })
            else { continue }
            let key = "\(script.rawValue)/\(components[2].index)"
            guard seen.insert(key).inserted else { continue }
            let account = try AccountKey(master: master, script: script, account: components[2].index, network: network)
            if let descriptor = account.descriptor { accounts.append(descriptor) }
        }
        return accounts
    }

    static func unregisteredInputs(_ psbt: PSBT, review: TransactionReview, provider: SeedKeyProvider) throws -> [Int] {
        var result: [Int] = []
        for (index, input) in psbt.inputs.enumerated() {
            guard case .foreign = review.analysis.inputs[index].ownership,
                input.witnessScript != nil || input.redeemScript != nil
            else { continue }
            let ours = input.bip32Derivations.contains { derivation in
                ((try? provider.privateKey(for: .bip32(publicKey: derivation.publicKey, origin: derivation.origin)))
                    ?? nil) != nil
            }
            if ours { result.append(index) }
        }
        return result
    }
}
