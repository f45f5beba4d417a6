import ArgumentParser
import Bitcoin
import CLISupport
import Foundation
import Watcher

/// `airlock-watcher addresses`.
struct Addresses: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "addresses",
        abstract: "List the derived addresses with their use.",
        discussion: "Examples:\n  airlock-watcher addresses\n  airlock-watcher addresses --change --json")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Show change addresses instead of receive addresses.")
    var change = false

    func run() async throws {
        try await ErrorReporting.run {
            let context = try WatcherContext(global)
            let wallet = try context.wallet()
            let keychain: Keychain = change ? .internal : .external
            let list = try context.store.addresses(walletID: try wallet.requireID()).filter { $0.keychain == keychain }
            let labels = Dictionary(
                try context.store.labels(walletID: try wallet.requireID()).filter { $0.type == "addr" }
                    .map { ($0.ref, $0.label ?? "") }, uniquingKeysWith: { a, _ in a })
            if global.json {
                try JSONOutput.print(list.map { AddressJSON($0, label: labels[$0.address]) })
            } else if list.isEmpty {
                print("no addresses yet (run sync, or receive)")
            } else {
                for a in list {
                    print(
                        "\(a.index)\t\(a.address)\t\(a.used ? "used" : "unused")"
                            + (labels[a.address].map { "\t" + DisplayText.clean($0) } ?? ""))
                }
            }
        }
    }
}
