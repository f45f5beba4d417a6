import AirgapTransport
import ArgumentParser
import CLISupport
import Signer
import SignerReports

extension AirlockSigner {
    /// `airlock-signer address`: derive an address on the offline screen, to compare with the watcher's.
    struct AddressCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "address",
            abstract: "Derive and show an address of this seed, to check what the watcher shows.",
            discussion: """
                Examples:
                  airlock-signer address --index 0
                  airlock-signer address --script tr --change --index 5 --terminal
                  airlock-signer address --account 1 --index 3 --json
                  airlock-signer address --chain eth --index 0 --json
                """)

        @OptionGroup var options: VaultOptions
        @OptionGroup var output: OutputOptions
        @Option(help: "Account number.") var account: UInt32 = 0
        @Option(help: "Script: wpkh, sh-wpkh, pkh or tr.") var script: AccountScript = .wpkh
        @Flag(help: "The change branch (1) instead of receive (0).") var change = false
        @Option(help: "The address index.") var index: UInt32
        @Option(help: "btc, or eth for the EIP-55 address at m/44'/60'/0'/0/INDEX.") var chain: Chain = .btc

        func validate() throws {
            guard account < 0x8000_0000, index < 0x8000_0000 else {
                throw ValidationError("--account and --index must be below 2^31")
            }
            if script == .wshMulti {
                throw ValidationError("--script wsh-multi is a multisig cosigner key and has no address of its own")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                if chain == .eth {
                    return try EthereumAccountCommands.address(options: options, output: output, index: index)
                }
                let unlocked = try options.unlock()
                let master = try options.masterKey(of: unlocked)
                let key = try AccountKey(master: master, script: script, account: account, network: unlocked.network)
                let address = try key.address(change: change, index: index)
                let origin = key.addressOrigin(change: change, index: index)?.description ?? ""
                let written = try output.write(
                    .address(address.description), fileBytes: Array((address.description + "\n").utf8),
                    json: options.json)
                if options.json {
                    try JSONOutput.print(
                        AddressJSON(
                            address: address.description, origin: origin, script: script.rawValue,
                            account: Int(account), change: change, index: Int(index),
                            network: unlocked.network.rawValue), files: written)
                } else {
                    print(address.description)
                    Diagnostics.print(origin)
                    OutputOptions.printWritten(written)
                }
            }
        }
    }
}
