import AirgapTransport
import ArgumentParser
import CLISupport
import Ethereum
import Foundation
import Watcher
import WatcherEthereum

/// `airlock-watcher eth import IN|0xADDRESS`.
struct EthImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an Ethereum account: the signer's ur:crypto-hdkey (file, text or PNG), or one address.",
        discussion: """
            A crypto-hdkey of m/44'/60'/N' (airlock-signer export --chain eth) follows addresses m/44'/60'/N'/0/0 \
            and on (--addresses); one address is watched alone, and its requests carry no derivation path.

            The chain id is --chain-id, else 1 (Ethereum mainnet). When an Ethereum node is set (node set \
            eth+http://…), its chain id is asked: a node on another chain than the default is refused (exit 2) \
            with the --chain-id to give; a named chain id the node contradicts is imported with a warning.

            Examples:
              airlock-watcher eth import account.png --name main --chain-id 1 --addresses 3
              airlock-watcher eth import 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed --name cold --chain-id 11155111
            """)

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The ur:crypto-hdkey (file, '-', PNG images) or an address 0x….") var input: [String]
    @Option(help: "The account's name.") var name = "eth"
    @Option(
        name: .customLong("chain-id"),
        help:
            "The chain id the account lives on (default 1, Ethereum mainnet; checked against the node when one is set)."
    )
    var chainID: UInt64?
    @Option(help: "How many addresses of an account key to follow (1-100).") var addresses = 1

    func validate() throws {
        guard (1...EthereumAccount.maxAddresses).contains(addresses) else {
            throw ValidationError("--addresses must be 1 to \(EthereumAccount.maxAddresses)")
        }
        if let chainID { guard chainID > 0 else { throw ValidationError("--chain-id must be positive") } }
    }

    func run() async throws {
        try await ErrorReporting.run {
            let context = try EthContext(global)
            var node: EthereumFlows.NodeProvider?
            if try context.store.setting(EthContext.nodeURLKey) != nil { node = context.node }
            let report = try await EthereumFlows.importAccount(
                { try accountSource() }, name: name, chainID: chainID, addresses: addresses, store: context.store,
                node: node, notice: { Diagnostics.print($0) })
            if let warning = report.warning { Diagnostics.print(warning) }
            if global.json { try JSONOutput.print(report.json) } else { printLines(report.lines) }
        }
    }

    /// The account the input holds: an address typed, else what the file, stdin or images hold.
    func accountSource() throws -> EthereumFlows.AccountSource {
        if input.count == 1, input[0].hasPrefix("0x") || input[0].hasPrefix("0X"),
            !FileManager.default.fileExists(atPath: input[0])
        {
            return .address(try EthereumInputs.address(input[0], what: "the address"))
        }
        let read = try InputReader.read(input, expecting: [.hdKey, .address, .text])
        switch read.payload {
        case .hdKey(let key): return .hdKey(key)
        case .address(let text), .text(let text):
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return .address(try EthereumInputs.address(trimmed, what: "the address"))
        default: throw CLIError(.invalidInput, "a \(read.payload.kind.rawValue) is not an Ethereum account")
        }
    }

}
