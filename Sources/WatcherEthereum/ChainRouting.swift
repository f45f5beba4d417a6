import AirgapTransport
import Foundation
import Watcher

/// The chain a watcher command is about.
public enum WatcherChain: String, Sendable, Equatable {
    case bitcoin
    case ethereum
}

/// Which chain a top-level command of docs/architecture.md section 10 is for, from its wallet or its input.
///
/// The contract names Ethereum's commands beside Bitcoin's (`import`, `sync`, `balance`, `history`, `receive`, `send`,
/// `broadcast`, `bump`, `token`). A command is for Ethereum when what it is given can only be Ethereum:
/// - `token …` (Bitcoin has no tokens);
/// - `import` of a `ur:crypto-hdkey` (as text, a file, or QR images holding one) or of `0x` addresses (as text, or a
///   file holding them);
/// - `send --to 0x…` or `send --token …`;
/// - `broadcast` of a `ur:eth-signature` (text or a file holding one);
/// - `sync`, `balance`, `history`, `receive`, `bump`, and `send` and `broadcast` of images, when the wallet is an
///   Ethereum account: the named wallet is an Ethereum account and no Bitcoin wallet, or no wallet is named and the
///   data directory holds Ethereum accounts only.
/// Anything else is for Bitcoin. Front ends (the command line, the web app) ask here and dispatch on the answer.
public enum ChainRouting {
    /// The top-level commands both chains have.
    public enum Command: String, Sendable, CaseIterable {
        case importAccount = "import"
        case sync, balance, history, receive, send, broadcast, bump, token
    }

    /// What a command is given that can tell its chain.
    public struct Request: Sendable {
        public var command: Command
        /// The inputs: text, file paths or QR image paths.
        public var inputs: [String]
        /// The recipient (`--to`).
        public var recipient: String?
        /// The token named (`--token`).
        public var token: String?
        /// The wallet named (`--wallet`), if any.
        public var wallet: String?
        /// The data directory.
        public var dataDirectory: String

        public init(
            command: Command, inputs: [String] = [], recipient: String? = nil, token: String? = nil,
            wallet: String? = nil, dataDirectory: String
        ) {
            self.command = command
            self.inputs = inputs
            self.recipient = recipient
            self.token = token
            self.wallet = wallet
            self.dataDirectory = dataDirectory
        }
    }

    /// The chain `request` is for.
    ///
    /// - Parameters:
    ///   - request: the command and what it is given.
    ///   - openStore: opens the store of the data directory; called only when its database already exists (routing
    ///     never creates one).
    ///   - readImages: decodes QR images (or directories of them) to their payload; nil when they hold none.
    /// - Returns: Ethereum or Bitcoin.
    public static func chain(
        for request: Request, openStore: (String) -> Store?, readImages: ([String]) -> Payload?
    ) -> WatcherChain {
        func wallet() -> WatcherChain {
            guard Store.exists(in: request.dataDirectory), let store = openStore(request.dataDirectory) else {
                return .bitcoin
            }
            return chain(ofWallet: request.wallet, in: store)
        }
        switch request.command {
        case .token: return .ethereum
        case .importAccount:
            if request.inputs.contains(where: { holdsAccount($0) }) { return .ethereum }
            guard allImages(request.inputs), case .hdKey = readImages(request.inputs) else { return .bitcoin }
            return .ethereum
        case .send:
            if request.recipient.map(isAddress) == true || request.token != nil { return .ethereum }
            return wallet()
        case .broadcast:
            if request.inputs.contains(where: { holds($0, prefix: "ur:eth-signature") }) { return .ethereum }
            return wallet()
        case .sync, .balance, .history, .receive, .bump: return wallet()
        }
    }

    /// The chain of the wallet `name` in `store`.
    ///
    /// Ethereum when it names an Ethereum account and no Bitcoin wallet,
    /// or, with no name, when the store holds Ethereum accounts and no Bitcoin wallet. A store that cannot be read
    /// leaves the command with Bitcoin, whose commands report it.
    public static func chain(ofWallet name: String?, in store: Store) -> WatcherChain {
        guard let accounts = try? store.ethereumAccounts(), !accounts.isEmpty, let wallets = try? store.wallets()
        else { return .bitcoin }
        if let name {
            return accounts.contains { $0.name == name } && !wallets.contains { $0.name == name } ? .ethereum : .bitcoin
        }
        return wallets.isEmpty ? .ethereum : .bitcoin
    }

    /// The chain an input's text is for: Ethereum for a `ur:crypto-hdkey`, a `ur:eth-signature` or `0x` addresses
    /// one a line; nil (undecided) for anything else.
    public static func chain(ofText text: String) -> WatcherChain? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let lower = trimmed.lowercased()
        if lower.hasPrefix("ur:crypto-hdkey") || lower.hasPrefix("ur:eth-signature") || isAddressList(trimmed) {
            return .ethereum
        }
        return nil
    }

    /// `0x` and 40 hex digits (any case; the checksum is checked where the address is used).
    public static func isAddress(_ text: String) -> Bool {
        let body = text.hasPrefix("0x") || text.hasPrefix("0X") ? text.dropFirst(2) : ""
        return body.count == 40 && body.allSatisfy(\.isHexDigit)
    }

    /// One address, or lines each holding one.
    static func isAddressList(_ text: String) -> Bool {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return !lines.isEmpty && lines.allSatisfy(isAddress)
    }

    /// An account to import: a `ur:crypto-hdkey` or addresses, given as text or in a small file.
    static func holdsAccount(_ input: String) -> Bool {
        if holds(input, prefix: "ur:crypto-hdkey") || isAddress(input) { return true }
        return fileText(input).map(isAddressList) ?? false
    }

    /// `text` starts with `prefix` (case-insensitive), or names a small file whose text does.
    static func holds(_ text: String, prefix: String) -> Bool {
        if text.lowercased().hasPrefix(prefix) { return true }
        return fileText(text).map { $0.lowercased().hasPrefix(prefix) } ?? false
    }

    /// Every path is an existing image file (`.png`, `.jpg`, `.jpeg`, `.gif`) or directory; false for none.
    static func allImages(_ paths: [String]) -> Bool {
        let endings = [".png", ".jpg", ".jpeg", ".gif"]
        return !paths.isEmpty
            && paths.allSatisfy { path in
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
                return isDirectory.boolValue || endings.contains { path.lowercased().hasSuffix($0) }
            }
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
}

extension Store {
    /// Whether `directory` already holds the watcher's database (without creating it).
    public static func exists(in directory: String) -> Bool {
        FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("wallet.sqlite"))
    }
}
