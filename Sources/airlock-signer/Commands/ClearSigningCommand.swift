import ArgumentParser
import CLISupport
import EthereumSigner
import Signer

extension AirlockSigner {
    /// `airlock-signer clear-signing import|list|remove`: the ERC-7730 descriptors that show contract calls and
    /// EIP-712 messages in words (docs/signer.md, "Clear signing").
    struct ClearSigningCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear-signing",
            abstract: "Import, list or remove ERC-7730 descriptors that show contract calls in words.",
            discussion: """
                A descriptor (ERC-7730 version 2, as in the public clear-signing registry) binds to contracts by \
                chain id and address and says how each function or EIP-712 message is shown. On sign, a request \
                whose chain, contract and function a stored descriptor matches is shown by it and needs no \
                --allow-blind; anything else stays as before. Descriptors are kept in the vault's authenticated \
                header: a changed file fails to open.

                Examples:
                  airlock-signer clear-signing import registry/aave/calldata-lpv3.json
                  airlock-signer clear-signing import registry/uniswap --yes
                  airlock-signer clear-signing list
                  airlock-signer clear-signing remove 2
                """,
            subcommands: [ClearSigningImport.self, ClearSigningList.self, ClearSigningRemove.self])
    }

    struct ClearSigningImport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a descriptor file, or every descriptor of a folder (with their includes).",
            discussion: """
                What the descriptors cover (owner, contracts and chains, functions) is shown first (on stderr); \
                then it asks, --yes answers. Without --yes and without a terminal to ask on, nothing is stored \
                (exit 4). A descriptor of another format version, or one that cannot be read, is refused (exit 2) \
                and nothing is stored. A descriptor binding the same contracts and functions as a stored one \
                replaces it.

                Examples:
                  airlock-signer clear-signing import calldata-lpv3.json
                  airlock-signer clear-signing import registry/uniswap --yes
                """)

        @OptionGroup var options: VaultOptions
        @Argument(help: "A descriptor file (.json) or a folder of them.") var path: String
        @Flag(help: "Import without asking (what they cover is still shown).") var yes = false

        func run() async throws {
            try await ErrorReporting.run {
                let plan: ClearSigningStore.ImportPlan
                do { plan = try ClearSigningStore.plan(path: path) } catch let error as ClearSigningStore.ImportError {
                    throw CLIError(error.isIO ? .io : .invalidInput, error.description)
                }
                let unlocked = try options.unlock()
                try ReviewGate.run(
                    review: plan.review.joined(separator: "\n"), json: options.json, yes: yes,
                    question: "Import \(plan.entries.count == 1 ? "this descriptor" : "these descriptors")?",
                    what: "imported", aftermath: "; nothing stored")
                let stored = ClearSigningStore.merged(existing: unlocked.clearSigningDescriptors, plan: plan)
                try unlocked.setClearSigningDescriptors(stored)
                if options.json {
                    try JSONOutput.print(ClearSigningStore.ChangeReport(imported: plan.entries.count, texts: stored))
                } else {
                    print("Imported \(plan.entries.count) descriptor(s); the vault holds \(stored.count)")
                }
            }
        }
    }

    struct ClearSigningList: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the stored descriptors, numbered for remove.",
            discussion: """
                Examples:
                  airlock-signer clear-signing list
                """)

        @OptionGroup var options: VaultOptions

        func run() async throws {
            try await ErrorReporting.run {
                let unlocked = try options.unlock()
                let texts = unlocked.clearSigningDescriptors
                if options.json { return try JSONOutput.print(ClearSigningStore.items(texts: texts)) }
                if texts.isEmpty { print("No clear-signing descriptors stored") }
                for (n, text) in texts.enumerated() {
                    print("\(n + 1).")
                    if let descriptor = try? ClearSigningStore.parse(text) {
                        for line in ClearSigningStore.describe(descriptor) { print(line) }
                    } else {
                        print("  (this stored descriptor can no longer be read; it is not used)")
                    }
                }
            }
        }
    }

    struct ClearSigningRemove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a stored descriptor by its number in clear-signing list.",
            discussion: """
                A number that is not in the list exits 2.

                Examples:
                  airlock-signer clear-signing remove 1
                """)

        @OptionGroup var options: VaultOptions
        @Argument(help: "The descriptor's number in clear-signing list.") var number: Int

        func run() async throws {
            try await ErrorReporting.run {
                let unlocked = try options.unlock()
                var texts = unlocked.clearSigningDescriptors
                guard number >= 1, number <= texts.count else {
                    throw CLIError(
                        .invalidInput, "no stored descriptor number \(number) (clear-signing list shows them)")
                }
                texts.remove(at: number - 1)
                try unlocked.setClearSigningDescriptors(texts)
                if options.json {
                    try JSONOutput.print(ClearSigningStore.ChangeReport(removed: 1, texts: texts))
                } else {
                    print("Removed descriptor \(number); the vault holds \(texts.count)")
                }
            }
        }
    }
}
