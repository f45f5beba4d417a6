import Bitcoin
public import ClearSigning
public import Codecs
public import Ethereum
import Foundation
public import Signer

/// The ERC-7730 descriptors a vault holds (`clear-signing import|list|remove`): reading files, the import review,
/// and the registry the sign review renders calls through (docs/signer.md, "Clear signing").
public enum ClearSigningStore {
    /// One descriptor read from a file, merged with its `includes`.
    public struct Entry: Sendable {
        /// The file it came from (for the review).
        public let file: String
        public let descriptor: Descriptor
        /// The merged document as stored in the vault.
        public let text: String
    }

    /// What an import would store, and the review of what it covers.
    public struct ImportPlan: Sendable {
        public let entries: [Entry]
        /// Files of a folder that were not read as descriptors (included files, test files), for the review.
        public let skipped: [String]

        /// The review lines: each descriptor's owner, contract, chains and addresses, and functions or messages.
        public var review: [String] {
            var lines: [String] = []
            for entry in entries {
                lines += ClearSigningStore.describe(entry.descriptor, source: entry.file)
            }
            if !skipped.isEmpty { lines.append("Not descriptors (includes or test files): \(skipped.count) files") }
            return lines
        }
    }

    /// A problem with an import: a file that cannot be read, or a descriptor that is refused.
    public struct ImportError: Error, CustomStringConvertible, Sendable {
        public let description: String
        /// True when a file could not be read (I/O), false when its content is refused.
        public let isIO: Bool
    }

    /// Reads `path`: one descriptor file, or every `*.json` descriptor of a folder.
    ///
    /// In a folder, files another file includes (or without a `context` and no `includes`) are skipped as includes,
    /// and so are `*.tests.json`; `includes` are read beside the including file.
    ///
    /// - Throws: `ImportError` naming the file and what is wrong.
    public static func plan(path: String) throws(ImportError) -> ImportPlan {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportError(description: "\(path): no such file or folder", isIO: true)
        }
        var files: [String] = []
        var skipped: [String] = []
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            for name in names.sorted() where name.hasSuffix(".json") {
                if name.hasSuffix(".tests.json") {
                    skipped.append(name)
                    continue
                }
                files.append((path as NSString).appendingPathComponent(name))
            }
        } else {
            files = [path]
        }
        // In a folder, a file another file includes is part of that descriptor, not one of its own.
        var included: Set<String> = []
        if isDirectory.boolValue {
            for file in files {
                guard let data = FileManager.default.contents(atPath: file),
                    let document = try? JSONValue(json: Array(data)), let includes = document["includes"]
                else { continue }
                for name in includes.array?.compactMap(\.string) ?? includes.string.map({ [$0] }) ?? [] {
                    included.insert((name as NSString).lastPathComponent)
                }
            }
        }
        var entries: [Entry] = []
        for file in files {
            if included.contains((file as NSString).lastPathComponent) {
                skipped.append((file as NSString).lastPathComponent)
                continue
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ImportError(description: "\(file): cannot be read", isIO: true)
            }
            if isDirectory.boolValue, let document = try? JSONValue(json: Array(data)), document["context"] == nil,
                document["includes"] == nil
            {
                skipped.append((file as NSString).lastPathComponent)
                continue
            }
            let folder = (file as NSString).deletingLastPathComponent
            let descriptor: Descriptor
            do {
                descriptor = try Descriptor(bytes: Array(data)) { (name: String) throws(ClearSigningError) -> [UInt8] in
                    guard !name.contains("://"), !name.hasPrefix("/"),
                        let included = FileManager.default.contents(
                            atPath: (folder as NSString).appendingPathComponent(name))
                    else { throw .invalidDescriptor("the included file \(name) is not beside it") }
                    return Array(included)
                }
            } catch {
                throw ImportError(description: "\((file as NSString).lastPathComponent): \(error)", isIO: false)
            }
            entries.append(
                Entry(
                    file: file, descriptor: descriptor,
                    text: String(decoding: descriptor.json.serialized(), as: UTF8.self)))
        }
        guard !entries.isEmpty else { throw ImportError(description: "\(path): holds no descriptor", isIO: false) }
        return ImportPlan(entries: entries, skipped: skipped)
    }

    /// The stored texts after importing `plan` over `existing`: a descriptor already stored (same text) is kept
    /// once; one binding the same deployments and keys as a stored one replaces it.
    public static func merged(existing: [String], plan: ImportPlan) -> [String] {
        var result = existing
        for entry in plan.entries {
            result.removeAll { text in
                guard let stored = try? parse(text) else { return false }
                return text == entry.text
                    || (Set(stored.deployments) == Set(entry.descriptor.deployments)
                        && stored.formats.map(\.key) == entry.descriptor.formats.map(\.key))
            }
            result.append(entry.text)
        }
        return result
    }

    /// A stored text as a descriptor.
    public static func parse(_ text: String) throws(ClearSigningError) -> Descriptor {
        let document: JSONValue
        do { document = try JSONValue(json: text) } catch {
            throw .invalidDescriptor("the stored text is not JSON")
        }
        return try Descriptor(merged: document)
    }

    /// The registry of the vault's descriptors, with the vault's tokens and the built-in ones.
    public static func registry(texts: [String], tokens: [EthereumToken]) -> ClearSigningRegistry {
        let descriptors = texts.compactMap { try? parse($0) }
        let known = (tokens + EthereumToken.builtIn).map {
            TokenInfo(chainID: $0.chainID, address: $0.address, symbol: $0.symbol, decimals: Int($0.decimals))
        }
        return ClearSigningRegistry(descriptors: descriptors, tokens: known)
    }

    /// The tokens the stored descriptors name (`metadata.token`), as the token list takes them.
    public static func tokens(texts: [String]) -> [EthereumToken] {
        texts.compactMap { try? parse($0) }.flatMap(\.tokens).compactMap { info in
            guard let chain = info.chainID, let address = info.address, EthereumToken.isValidSymbol(info.symbol),
                (0...Int(EthereumToken.maximumDecimals)).contains(info.decimals)
            else { return nil }
            return EthereumToken(chainID: chain, address: address, symbol: info.symbol, decimals: UInt8(info.decimals))
        }
    }

    /// The lines that describe one descriptor (import review, `list`).
    public static func describe(_ descriptor: Descriptor, source: String? = nil) -> [String] {
        var lines: [String] = []
        let owner = DisplayText.clean(descriptor.owner ?? "(no owner)")
        let name = descriptor.name.map { " — " + DisplayText.clean($0) } ?? ""
        lines.append("Descriptor: \(owner)\(name)" + (source.map { " (\(($0 as NSString).lastPathComponent))" } ?? ""))
        switch descriptor.context {
        case .contract: lines.append("  Kind: contract calls")
        case .eip712: lines.append("  Kind: EIP-712 messages")
        }
        if descriptor.isTemplate {
            lines.append("  Applies to: the tokens of the signer's token list (an interface template)")
        }
        for deployment in descriptor.deployments {
            lines.append("  Contract: \(deployment.address.checksummed) on chain \(deployment.chainID)")
        }
        for format in descriptor.formats {
            let intent = format.json["intent"]?.string.map { " → " + DisplayText.clean($0) } ?? ""
            lines.append("  Shows: " + DisplayText.clean(format.key) + intent)
        }
        return lines
    }
}

extension ClearSigningStore {
    /// One stored descriptor as `clear-signing list --json` shows it.
    public struct Item: Encodable, Sendable {
        public struct Contract: Encodable, Sendable {
            public let chainId: UInt64
            public let address: String
        }

        /// The number `remove` takes.
        public let number: Int
        public let owner: String?
        public let name: String?
        /// `contract` (calls) or `eip712` (messages).
        public let kind: String
        /// An interface template: applies to the tokens of the token list only.
        public let template: Bool
        public let contracts: [Contract]
        /// The function signatures or EIP-712 types it shows.
        public let shows: [String]

        public init(number: Int, descriptor: Descriptor) {
            self.number = number
            owner = descriptor.owner
            name = descriptor.name
            if case .eip712 = descriptor.context { kind = "eip712" } else { kind = "contract" }
            template = descriptor.isTemplate
            contracts = descriptor.deployments.map { Contract(chainId: $0.chainID, address: $0.address.checksummed) }
            shows = descriptor.formats.map(\.key)
        }
    }

    /// What `clear-signing import|remove --json` answers: the count changed and what the vault now holds.
    public struct ChangeReport: Encodable, Sendable {
        public let imported: Int
        public let removed: Int
        public let stored: [Item]

        public init(imported: Int = 0, removed: Int = 0, texts: [String]) {
            self.imported = imported
            self.removed = removed
            stored = ClearSigningStore.items(texts: texts)
        }
    }

    /// The stored descriptors that can be read, numbered as `remove` takes them.
    public static func items(texts: [String]) -> [Item] {
        texts.enumerated().compactMap { n, text in
            (try? parse(text)).map { Item(number: n + 1, descriptor: $0) }
        }
    }
}
