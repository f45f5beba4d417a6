import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Descriptors
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher import IN [--name NAME]`.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import an account: a descriptor, two descriptors, an xpub with origin, or a signer's JSON export.",
        discussion: """
            IN is a file, - for stdin, or PNG images of QR codes (one code, a sheet, or animated frames; UR \
            crypto-account, crypto-output, output-descriptor, account-descriptor, BBQr, plain text). Accepted:
              - a descriptor with checksum, e.g. wpkh([fp/84h/1h/0h]tpub.../<0;1>/*)#checksum (BIP389 multipath),
                or tr(...), wsh(sortedmulti(2,...)), sh(wpkh(...)), pkh(...)
              - two single-path descriptors on two lines: receive (/0/*) then change (/1/*)
              - an extended key with origin, [fp/84h/0h/0h]zpub...; the SLIP-132 version picks the script
                (xpub/tpub: pkh, ypub/upub: sh(wpkh), zpub/vpub: wpkh)
              - the generic JSON export (Coldcard-style, airlock-signer export --format json): bip84 by default
              - a BSMS 1.0 descriptor record (BIP129 round 2, unencrypted): its first address must be the
                descriptor's (else exit 2) and is shown

            Examples:
              airlock-watcher import account.txt --name savings --network regtest
              airlock-watcher import wallet.bsms --name team --network regtest
              airlock-signer export --format json | airlock-watcher import - --section bip86
              airlock-watcher import account.txt --name savings --birthday 2024-03-01

            --birthday (a block height or a UTC date) is stored with the wallet: a Bitcoin Core node imports the \
            descriptors with that block's (or day's) timestamp and rescans only from there, not from genesis.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The account: a file, - for stdin, or PNG images (or a directory of them).")
    var input: [String]

    @Option(help: "Name of the new wallet (default: the export section, else 'default').")
    var name: String?

    @Option(
        help:
            "Network: main, test, signet or regtest (default: from the keys; test keys take the node's test network at the first sync)."
    )
    var network: String?

    @Option(help: "Gap limit: unused addresses in a row that end discovery.")
    var gapLimit = 20

    @Option(help: "Section of a JSON export to use: bip84, bip86, bip49, bip44.")
    var section: String?

    @Option(help: "First block height, or day (YYYY-MM-DD, UTC), that may hold the wallet's transactions.")
    var birthday: String?

    func validate() throws {
        guard (1...1000).contains(gapLimit) else { throw ValidationError("--gap-limit must be 1...1000") }
        if let network, Network(name: network) == nil {
            throw ValidationError("unknown network '\(network)': main, test, signet or regtest")
        }
        if let name, name.isEmpty || name.count > 64 || name.contains(where: { $0.isNewline }) {
            throw ValidationError("--name must be 1-64 characters on one line")
        }
    }

    func run() async throws {
        try await ErrorReporting.run {
            let read = try InputReader.read(input, expecting: WalletImport.kinds)
            let options = WalletImport.Options(
                name: name, network: network.flatMap(Network.init(name:)), gapLimit: gapLimit, section: section,
                birthday: birthday)
            let report = try WalletImport.run(payload: read.payload, options: options) {
                try WatcherContext(global).store
            }
            if let first = report.bsmsFirstAddress {
                Diagnostics.print("BSMS record: first address \(first) (checked: the descriptor gives the same)")
            }
            if global.json { try JSONOutput.print(report) } else { print(report.lines.joined(separator: "\n")) }
        }
    }
}
