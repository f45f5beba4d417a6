import AirgapTransport
import ArgumentParser
import CLISupport
import Foundation
import Watcher
import WatcherEthereum

/// Reads from the command line what `ChainRouting` (in `Watcher`) needs to say which chain a top-level command is for.
///
/// The decision is the library's; this only picks the command's name, its inputs and the values of `--to`,
/// `--token`, `--wallet` and `--data-dir` out of the arguments, which are not changed. `AirlockWatcher.main` then
/// parses them as a Bitcoin command, or as one of the `eth` group's (`EthereumCommands`).
enum EthereumRouting {
    /// The chain of the command `arguments` (those after the program name, leading options already moved behind the
    /// subcommand) name; Bitcoin for anything that is not one of the shared top-level commands.
    static func chain(_ arguments: [String]) -> WatcherChain {
        guard let name = arguments.first, let command = ChainRouting.Command(rawValue: name) else { return .bitcoin }
        let rest = Array(arguments.dropFirst())
        let request = ChainRouting.Request(
            command: command, inputs: positionals(rest), recipient: value(of: "--to", in: rest),
            token: value(of: "--token", in: rest), wallet: value(of: "--wallet", in: rest),
            dataDirectory: GlobalOptions.dataDirectory(value(of: "--data-dir", in: rest)))
        return ChainRouting.chain(
            for: request, openStore: { try? OpenStores.store(directory: $0) },
            readImages: { try? InputReader.read($0, expecting: [.hdKey]).payload })
    }

    /// The arguments that are neither options nor option values (a rough cut: every `--name` takes the next argument
    /// unless it is a known flag or has `=`).
    static func positionals(_ arguments: [String]) -> [String] {
        let flags: Set<String> = ["--json", "--yes", "--max", "--wait", "--dry-run", "--no-rbf", "--help", "-h"]
        var found: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                found += arguments[(index + 1)...]
                break
            }
            if argument.hasPrefix("-") {
                index += (flags.contains(argument) || argument.contains("=")) ? 1 : 2
                continue
            }
            found.append(argument)
            index += 1
        }
        return found
    }

    static func value(of option: String, in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == option, index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix(option + "=") { return String(argument.dropFirst(option.count + 1)) }
        }
        return nil
    }
}

/// The command line for arguments `ChainRouting` found to be about Ethereum: the `eth` group as the default
/// subcommand, so `airlock-watcher send --to 0x…` is parsed, unchanged, as `airlock-watcher eth send`, whose name its
/// usage lines and help hints give.
struct EthereumCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: AirlockWatcher.configuration.commandName, abstract: AirlockWatcher.configuration.abstract,
        discussion: AirlockWatcher.configuration.discussion, version: AirlockVersion.string, subcommands: [Eth.self],
        defaultSubcommand: Eth.self)
}
