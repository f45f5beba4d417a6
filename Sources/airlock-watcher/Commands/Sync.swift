import ArgumentParser
import CLISupport
import ChainBackends
import ChainCore
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher sync`.
struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Discover addresses to the gap limit and fetch their history from the node.",
        discussion: """
            Each batch of addresses is committed on its own, so an interrupted sync is safe to run again. \
            Transactions from an Electrum or Esplora server are checked against merkle proofs and block \
            headers; a server whose data does not check out is reported (exit 5) and nothing it sent is kept.

            Through Bitcoin Core, new descriptors are imported into the node's watch-only wallet with the wallet's \
            birthday (import --birthday; else genesis) and the node rescans from there: sync shows the rescan's \
            progress and waits for it without a time limit. A sync interrupted during a rescan leaves it running \
            on the node; the next sync waits for it and carries on.

            Examples:
              airlock-watcher sync
              airlock-watcher --wallet savings sync --json
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let (wallet, source) = try await context.connect(try context.wallet(), coreWallet: true)
            if let core = source as? BitcoinCoreRPC {
                core.rescanStart = try context.store.birthday(walletName: wallet.name).map(RescanStart.init)
                let rescanBar = ProgressBar(label: "node rescan", total: 1000)
                core.onRescan = { rescanBar.update(Int(($0.progress * 1000).rounded(.down))) }
            }
            let bar = ProgressBox(label: "sync \(wallet.name)")
            let report = try await SyncFlow.run(store: context.store, wallet: wallet, source: source) { bar.update($0) }
            if global.json { try JSONOutput.print(report) } else { print(report.line) }
        }
    }
}

extension RescanStart {
    /// Where the node rescans from for a wallet born at `birthday`.
    init(_ birthday: WalletBirthday) {
        switch birthday {
        case .height(let height): self = .height(height)
        case .date(let time): self = .timestamp(time)
        }
    }
}

/// A progress bar whose total may grow (discovery finds more addresses as it goes).
final class ProgressBox: @unchecked Sendable {
    private let label: String
    private var bar: ProgressBar?
    private var total = 0
    private let lock = NSLock()

    init(label: String) { self.label = label }

    func update(_ progress: SyncProgress) {
        lock.lock()
        defer { lock.unlock() }
        if bar == nil || progress.expected != total {
            total = progress.expected
            bar = ProgressBar(label: label, total: total)
        }
        bar?.update(progress.checked)
    }
}
