import ArgumentParser
import CLISupport
import Foundation
import Watcher
import WatcherFlows

/// `airlock-watcher labels export|import FILE` (BIP329).
struct Labels: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "labels",
        abstract: "Export or import labels as BIP329 JSON Lines.",
        discussion: """
            Examples:
              airlock-watcher labels export labels.jsonl
              airlock-watcher labels import labels.jsonl --json
            """,
        subcommands: [Export.self, ImportLabels.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the wallet's labels as BIP329 JSON Lines ('-' for stdout).",
            discussion: "Example:\n  airlock-watcher labels export labels.jsonl")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Output file, or - for stdout.") var file: String

        func run() async throws {
            try await ErrorReporting.run {
                let context = try WatcherContext(global)
                let (text, count) = try BackupFlow.exportLabels(store: context.store, wallet: try context.wallet())
                if file == "-" {
                    print(text, terminator: "")
                } else {
                    try LocalFiles.write(Data(text.utf8), to: file)
                    let report = BackupFlow.LabelsExportReport(exported: count, file: file)
                    if global.json { try JSONOutput.print(report) } else { Diagnostics.print(report.line) }
                }
            }
        }
    }

    struct ImportLabels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Read BIP329 JSON Lines ('-' for stdin); all lines are checked before any is stored.",
            discussion: """
                An output label with "spendable": false freezes that coin.

                Example:
                  airlock-watcher labels import labels.jsonl
                """)
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Input file, or - for stdin.") var file: String

        func run() async throws {
            try await ErrorReporting.run {
                let report = try BackupFlow.importLabels(try LocalFiles.text(file)) {
                    let context = try WatcherContext(global)
                    return (context.store, try context.wallet())
                }
                if global.json { try JSONOutput.print(report) } else { print(report.line) }
            }
        }
    }
}
