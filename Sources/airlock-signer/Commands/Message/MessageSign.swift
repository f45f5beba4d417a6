import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Signer

extension AirlockSigner {
    /// `airlock-signer message sign`: sign a message with the key of one of this seed's addresses.
    struct MessageSign: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign",
            abstract: "Sign a message with the key of an address of this seed (BIP322 simple/full or legacy).",
            discussion: """
                The address is named by --address (searched among this seed's wpkh, tr, sh-wpkh and pkh addresses \
                of --account, both branches, indexes below --search-limit) or by --script/--change/--index. The \
                review (on stderr, always, also with --json and --yes) shows the address, its key origin, the format \
                and the message text (hidden characters such as terminal controls and direction overrides shown as \
                \\u escapes, with a warning; --json gives the message as it is and "hidden_characters": true); \
                then it asks, and --yes answers. The signature is \
                written to stdout (or --out/--qr).

                Formats: bip322-simple (default for wpkh and tr; 'smp…'), bip322-full (default for sh-wpkh and \
                pkh; 'ful…'), legacy (Bitcoin Core's signmessage for pkh, BIP137 header bytes for sh-wpkh and \
                wpkh; not for tr).

                Examples:
                  airlock-signer message sign --message "I control this address" --index 0
                  airlock-signer message sign --address bcrt1q… --message-file proof.txt --yes --json
                  airlock-signer message sign --script pkh --index 3 --format legacy --message "hi" --qr sig.png
                """)

        @OptionGroup var options: VaultOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "The message text (signed as its UTF-8 bytes).") var message: String?
        @Option(help: "Read the message from PATH, every byte as signed ('-' is stdin).") var messageFile: String?
        @Option(help: "Sign for this address of the seed (searched).") var address: String?
        @Option(help: "Script of the address: wpkh, tr, sh-wpkh or pkh.") var script: AccountScript = .wpkh
        @Option(help: "Account number.") var account: UInt32 = 0
        @Flag(help: "The change branch (1) instead of receive (0).") var change = false
        @Option(help: "The address index.") var index: UInt32?
        @Option(help: "bip322-simple, bip322-full or legacy (default: simple for wpkh/tr, full otherwise).")
        var format: MessageFormat?
        @Option(help: "With --address: search indexes below this on both branches.") var searchLimit: UInt32 = 1000
        @Flag(help: "Sign without asking (the review is still shown).") var yes = false

        func validate() throws {
            guard (message == nil) != (messageFile == nil) else {
                throw ValidationError("give the message with exactly one of --message and --message-file")
            }
            guard (address == nil) != (index == nil) else {
                throw ValidationError("name the address with exactly one of --address and --index")
            }
            guard account < 0x8000_0000, (index ?? 0) < 0x8000_0000 else {
                throw ValidationError("--account and --index must be below 2^31")
            }
            guard (1...100_000).contains(searchLimit) else {
                throw ValidationError("--search-limit must be 1 to 100000")
            }
            if script == .wshMulti {
                throw ValidationError("--script wsh-multi is a multisig cosigner key and has no address of its own")
            }
        }

        /// The address given with --address.
        private func parsed(_ address: String) throws -> Bitcoin.Address {
            do { return try Bitcoin.Address(string: address) } catch {
                throw CLIError(.invalidInput, "not an address: \(address) (\(error))")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                let bytes = try MessageVerifyOptions.messageBytes(text: message, file: messageFile)
                let unlocked = try options.unlock()
                let signer = MessageSigner(master: try options.masterKey(of: unlocked), network: unlocked.network)
                let location =
                    try address.map { try signer.locate(parsed($0), account: account, indexLimit: searchLimit) }
                    ?? MessageSigner.Location(script: script, account: account, change: change, index: index ?? 0)
                let review = try signer.review(message: bytes, at: location, format: format)
                try ReviewGate.run(
                    review: review.reviewText, json: options.json, yes: yes, question: "Sign this message?",
                    answer: messageFile == "-" ? .controllingTerminal : .terminal)
                let signature = try signer.sign(review).description
                let written = try output.write(
                    .text(signature), fileBytes: Array((signature + "\n").utf8), json: options.json,
                    preferredFormat: .base64)
                if options.json {
                    try JSONOutput.print(review.report(signature: signature, written: written), files: written)
                } else {
                    if !output.isRequested { print(signature) }
                    OutputOptions.printWritten(written)
                }
            }
        }
    }
}

extension MessageFormat: ExpressibleByArgument {}
