import Bitcoin
import ChainCore
import Codecs
import Descriptors
import Foundation

/// An account read from import text: its receive and change descriptors and the network they are for.
public struct ImportedAccount: Sendable {
    public var external: Descriptor
    public var change: Descriptor?
    public var network: Network
    /// Where it came from: `descriptor`, `descriptors`, `extended-key`, `wallet-export`.
    public var source: String
    /// A name suggested by the input (the export's section), if any.
    public var suggestedName: String?
    /// How `network` was decided: `.keys` when test keys were read with no network named (they fit every test
    /// network; the wallet takes its node's at the first sync), else `.given`.
    public var networkSource: WalletNetworkSource = .given
}

/// Reads what `airlock-watcher import` accepts: a descriptor with checksum (multipath `<0;1>/*` or not), two
/// single-path descriptors on separate lines (receive, then change), the generic JSON wallet export (Coldcard-style, as
/// `airlock-signer export --format json` writes), or an extended key (`xpub`/`ypub`/`zpub`/`tpub`/`upub`/`vpub`) with a
/// `[fingerprint/path]` origin, whose SLIP-132 version picks `pkh`, `sh(wpkh)` or `wpkh`.
public enum AccountImport {
    /// Parses import text.
    ///
    /// `network` (when given) must agree with the keys; test keys default to `test`.
    ///
    /// - Throws: `ImportError`.
    public static func parse(_ text: String, network: Network? = nil, section: String? = nil) throws(ImportError)
        -> ImportedAccount
    {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .empty }
        if trimmed.hasPrefix("{") { return try parseExport(trimmed, network: network, section: section) }
        let lines = trimmed.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        if lines.count == 1, let line = lines.first, !line.contains("(") {
            return try parseExtendedKey(line, network: network)
        }
        guard (1...2).contains(lines.count) else {
            throw .unrecognized(String(trimmed.prefix(40)))
        }
        let descriptors = try lines.map { (line) throws(ImportError) -> Descriptor in try descriptor(line) }
        if descriptors.count == 2 {
            guard descriptors.allSatisfy({ $0.multipathCount == 1 }) else {
                throw .branchCount(descriptors[0].multipathCount)
            }
            return try make(descriptors[0], descriptors[1], network: network, source: "descriptors")
        }
        return try split(descriptors[0], network: network, source: "descriptor")
    }

    static func descriptor(_ text: String) throws(ImportError) -> Descriptor {
        let parsed: Descriptor
        do {
            parsed = try Descriptor(string: text)
        } catch {
            throw .descriptor(text, error)
        }
        guard !parsed.hasPrivateKeys else { throw .privateKeys }
        return parsed
    }

    /// Splits a multipath descriptor into its two branches.
    static func split(_ descriptor: Descriptor, network: Network?, source: String) throws(ImportError)
        -> ImportedAccount
    {
        switch descriptor.multipathCount {
        case 1: return try make(descriptor, nil, network: network, source: source)
        case 2:
            let branches = descriptor.singlePathDescriptors()
            return try make(branches[0], branches[1], network: network, source: source)
        case let n: throw .branchCount(n)
        }
    }

    static func make(_ external: Descriptor, _ change: Descriptor?, network: Network?, source: String)
        throws(ImportError) -> ImportedAccount
    {
        let keyNetworks = Set([external.network, change?.network].compactMap { $0 }.map { $0 == .main })
        guard keyNetworks.count <= 1 else { throw .networkMismatch("the descriptors mix mainnet and testnet keys") }
        let keysAreMain = keyNetworks.first
        let resolved: Network
        if let network {
            if let keysAreMain, keysAreMain != (network == .main) {
                throw .networkMismatch(
                    "the keys are for \(keysAreMain ? "mainnet" : "a test network"), not \(network.rawValue)")
            }
            resolved = network
        } else {
            resolved = keysAreMain == false ? .test : .main
        }
        // Every script must have an address form on the network (no bare multisig, no raw scripts).
        do {
            _ = try external.address(at: 0, network: resolved)
            _ = try change?.address(at: 0, network: resolved)
        } catch {
            throw .descriptor(external.description, error)
        }
        return ImportedAccount(
            external: external, change: change, network: resolved, source: source, suggestedName: nil,
            networkSource: network == nil && keysAreMain == false ? .keys : .given)
    }

    /// `[fp/path]xpub…` (or without origin): the script comes from the SLIP-132 version.
    static func parseExtendedKey(_ text: String, network: Network?) throws(ImportError) -> ImportedAccount {
        var keyText = text
        if let close = text.firstIndex(of: "]") { keyText = String(text[text.index(after: close)...]) }
        while keyText.hasSuffix("/") { keyText.removeLast() }
        if let slash = keyText.firstIndex(of: "/") { keyText = String(keyText[..<slash]) }
        guard let key = try? ExtendedPublicKey(base58: keyText) else {
            if (try? ExtendedPrivateKey(base58: keyText)) != nil { throw .privateKeys }
            throw .unrecognized(String(text.prefix(40)))
        }
        let body = text.contains("/<") || text.hasSuffix("*") ? text : "\(text)/<0;1>/*"
        let wrapped: String
        switch key.version.scriptHint {
        case .standard: wrapped = "pkh(\(body))"
        case .p2shP2wpkh: wrapped = "sh(wpkh(\(body)))"
        case .p2wpkh: wrapped = "wpkh(\(body))"
        case .p2shP2wsh, .p2wsh: throw .unsupportedKeyVersion(String(keyText.prefix(4)))
        }
        return try split(try descriptor(wrapped), network: network, source: "extended-key")
    }

    /// The generic JSON export: `chain` (BTC/XTN/XRT) and sections `bip84`, `bip86`, `bip49`, `bip44`, `bip48_2`.
    static func parseExport(_ text: String, network: Network?, section: String?) throws(ImportError) -> ImportedAccount
    {
        guard let object = try? JSONValue.parse(Array(text.utf8)), object.object != nil else {
            throw .unrecognized(String(text.prefix(40)))
        }
        var exportNetwork: Network?
        switch object["chain"]?.string {
        case "BTC": exportNetwork = .main
        case "XTN": exportNetwork = .test
        case "XRT": exportNetwork = .regtest
        default: exportNetwork = nil
        }
        if let network, let exportNetwork, (network == .main) != (exportNetwork == .main) {
            throw .networkMismatch("the export is for \(exportNetwork.rawValue), not \(network.rawValue)")
        }
        let order = section.map { [$0] } ?? ["bip84", "bip86", "bip49", "bip44", "bip48_2"]
        for name in order {
            guard let part = object[name] else { continue }
            if let text = part["desc"]?.string, text.contains("(") {
                var account = try split(
                    try descriptor(text), network: network ?? exportNetwork, source: "wallet-export")
                account.suggestedName = name
                return account
            }
            if let xpub = part["xpub"]?.string, let deriv = part["deriv"]?.string, let xfp = object["xfp"]?.string {
                let path = deriv.replacingOccurrences(of: "m/", with: "").replacingOccurrences(of: "'", with: "h")
                let key = "[\(xfp.lowercased())/\(path)]\(xpub)/<0;1>/*"
                let script: String
                switch name {
                case "bip44": script = "pkh(\(key))"
                case "bip49": script = "sh(wpkh(\(key)))"
                case "bip84": script = "wpkh(\(key))"
                case "bip86": script = "tr(\(key))"
                default: continue
                }
                var account = try split(
                    try descriptor(script), network: network ?? exportNetwork, source: "wallet-export")
                account.suggestedName = name
                return account
            }
        }
        throw .export(section.map { "section \($0)" } ?? "bip84/bip86/bip49/bip44 section")
    }
}
