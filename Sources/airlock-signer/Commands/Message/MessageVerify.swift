import ArgumentParser
import CLISupport

extension AirlockSigner {
    /// `airlock-signer message verify`: the same check as the watcher's, offline.
    struct MessageVerify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Verify a BIP322 (smp/ful/pof) or legacy signmessage signature for an address.",
            discussion: """
                Needs no vault. Exit 0 when valid; 2 when invalid, or inconclusive (a script this verifier does not \
                understand, BIP322's third state). A full signature with time locks is reported valid at its lock \
                time and age.

                Examples:
                  airlock-signer message verify --address bc1q… --message "Hello World" --signature smpAkcw…
                  airlock-signer message verify --address 1Bv… --message-file msg.txt --signature-file sig.txt --json
                """)

        @OptionGroup var options: MessageVerifyOptions

        func run() async throws {
            try await ErrorReporting.run { try MessageCheck.run(options) }
        }
    }
}
