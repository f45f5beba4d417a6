import ArgumentParser
import CLISupport

extension AirlockWatcher {
    /// `airlock-watcher message verify`: check a message signature (no wallet or node needed).
    struct Message: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "message",
            abstract: "Verify message signatures (BIP322 simple/full/proof of funds, legacy signmessage).",
            discussion: """
                Examples:
                  airlock-watcher message verify --address bcrt1q… --message "hi" --signature smpAkcw…
                """,
            subcommands: [Verify.self])

        struct Verify: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "verify",
                abstract: "Verify a BIP322 (smp/ful/pof) or legacy signmessage signature for an address.",
                discussion: """
                    Uses no wallet and no node: a proof-of-funds signature is checked for its scripts only, not \
                    for whether its coins exist or are unspent. Exit 0 when valid; 2 when invalid, or inconclusive \
                    (a script this verifier does not understand, BIP322's third state).

                    Examples:
                      airlock-watcher message verify --address bc1q… --message "Hello World" --signature smpAkcw…
                      airlock-watcher message verify --address 1Bv… --message-file m.txt --signature-file s.txt --json
                    """)

            @OptionGroup var options: MessageVerifyOptions

            func run() async throws {
                try await ErrorReporting.run { try MessageCheck.run(options) }
            }
        }
    }
}
