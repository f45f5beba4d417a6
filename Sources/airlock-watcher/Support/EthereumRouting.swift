import CLISupport
import Foundation
import Watcher

/// Sends the top-level commands of docs/architecture.md section 10 to the `eth` group when they are about Ethereum.
///
/// The contract names Ethereum's commands beside Bitcoin's (`import`, `sync`, `balance`, `history`, `receive`, `send`,
/// `broadcast`, `bump`, `token`); their implementations live under `airlock-watcher eth …`, where they can also be
/// called by name. A command goes to Ethereum when what it is given can only be Ethereum:
/// - `token …` (Bitcoin has no tokens);
/// - `import` of a `ur:crypto-hdkey` (as text, a file, or QR images holding one) or of `0x` addresses (as text, or a
///   file holding them);
/// - `send --to 0x…` or `send --token …`;
/// - `broadcast` of a `ur:eth-signature` (text or a file holding one);
/// - `sync`, `balance`, `history`, `receive`, `bump`, and `send` and `broadcast` of images, when the wallet is an
///   Ethereum account: `--wallet NAME` names an Ethereum account and no Bitcoin wallet, or no `--wallet` is given and
///   the data directory holds Ethereum accounts only.
/// Anything else stays with Bitcoin, unchanged. `arguments` are those after the program name, leading options already
/// moved behind the subcommand.
enum EthereumRouting {
    static func route(_ arguments: [String]) -> [String] {
        guard let command = arguments.first, !command.hasPrefix("-") else { return arguments }
        let rest = Array(arguments.dropFirst())
        let isEthereum: Bool =
            switch command {
            case "token": true
            case "import":
                positionals(rest).contains { holds($0, prefix: "ur:crypto-hdkey") || isAddressList($0) }
                    || imagesHoldHDKey(positionals(rest))
            case "send":
                value(of: "--to", in: rest).map(isAddress) == true || value(of: "--token", in: rest) != nil
                    || walletIsEthereum(rest)
            case "broadcast":
                positionals(rest).contains { holds($0, prefix: "ur:eth-signature") } || walletIsEthereum(rest)
            case "sync", "balance", "history", "receive", "bump": walletIsEthereum(rest)
            default: false
            }
        return isEthereum ? ["eth"] + arguments : arguments
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

    static func isAddress(_ text: String) -> Bool {
        let body = text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : ""
        return body.count == 40 && body.allSatisfy(\.isHexDigit)
    }

    /// `text` starts with `prefix` (case-insensitive), or names a small file whose text does.
    static func holds(_ text: String, prefix: String) -> Bool {
        if text.lowercased().hasPrefix(prefix) { return true }
        return fileText(text).map { $0.lowercased().hasPrefix(prefix) } ?? false
    }

    /// Whether `paths` are images (or directories of them) whose QR codes decode to a `ur:crypto-hdkey`.
    ///
    /// Decoded here once more by the same reader the command uses; anything else (no images, another payload, an unreadable file)
    /// leaves the command with Bitcoin, whose import reports it.
    static func imagesHoldHDKey(_ paths: [String]) -> Bool {
        let imageEndings = [".png", ".jpg", ".jpeg", ".gif"]
        guard !paths.isEmpty,
            paths.allSatisfy({ path in
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
                return isDirectory.boolValue || imageEndings.contains { path.lowercased().hasSuffix($0) }
            })
        else { return false }
        return (try? InputReader.read(paths, expecting: [.hdKey])) != nil
    }

    /// One address, or a file of addresses one a line.
    static func isAddressList(_ text: String) -> Bool {
        if isAddress(text) { return true }
        guard let content = fileText(text) else { return false }
        let lines = content.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return !lines.isEmpty && lines.allSatisfy(isAddress)
    }

    /// The trimmed text of a regular file of at most 1 MiB, or nil.
    static func fileText(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int, size <= 1 << 20,
            let data = FileManager.default.contents(atPath: path)
        else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the command's wallet is an Ethereum account (read from an existing database only).
    static func walletIsEthereum(_ arguments: [String]) -> Bool {
        let directory = GlobalOptions.dataDirectory(value(of: "--data-dir", in: arguments))
        guard FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("wallet.sqlite")),
            let store = try? OpenStores.store(directory: directory),
            let accounts = try? store.ethereumAccounts(), !accounts.isEmpty,
            let wallets = try? store.wallets()
        else { return false }
        if let name = value(of: "--wallet", in: arguments) {
            return accounts.contains { $0.name == name } && !wallets.contains { $0.name == name }
        }
        return wallets.isEmpty
    }
}
