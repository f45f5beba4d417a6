import Bitcoin
import BitcoinCrypto
import MessageSigning

/// Signs messages with a key of this seed (docs/signer.md, "Message signing"): BIP322 simple or full, or the legacy
/// `signmessage` format, for a single-key address of a standard account.
///
/// The review comes first: the address, its key origin, the format and the message as text (cleaned of terminal
/// control and format characters, which are also reported), so the user sees what is signed before the key is used.
public struct MessageSigner: Sendable {
    /// The largest message accepted (BIP322 recommends a few kilobytes; a QR code carries about 3 KB).
    public static let maximumMessageSize = 65_536

    /// What is shown before signing.
    public struct Review: Sendable {
        /// The address signed for.
        public let address: Address
        /// The account kind of the address.
        public let script: AccountScript
        /// `[fp/purpose'/coin'/account'/change/index]`.
        public let origin: KeyOrigin
        /// The format.
        public let format: MessageFormat
        /// The message bytes as given.
        public let message: [UInt8]
        /// The message as shown: each line cleaned for the terminal; hex when it is not UTF-8.
        public let displayLines: [String]
        /// What the user should know (hidden characters, non-UTF-8 bytes, the legacy format's limits).
        public let warnings: [String]
        /// Whether the message held hidden characters (terminal controls, direction overrides), shown escaped.
        public let hasHiddenCharacters: Bool
        /// The message as text when it is UTF-8 (as given, for `--json`), else nil (shown in hex).
        public var text: String? { String(validating: message, as: UTF8.self) }

        /// `message sign --json`.
        public struct Report: Encodable, Sendable {
            let address: String
            let origin: String
            let script: String
            let format: String
            let message: String
            let messageBytes: Int
            let signature: String
            let warnings: [String]
            let written: [String]
            /// Whether the message held hidden characters (given as it is in `message`; escaped on the screen).
            let hiddenCharacters: Bool?
        }

        /// The `--json` report of the signature (base64) written to `written`.
        public func report(signature: String, written: [String]) -> Report {
            Report(
                address: address.description, origin: origin.description, script: script.rawValue,
                format: format.rawValue, message: text ?? displayLines.joined(separator: "\n"),
                messageBytes: message.count, signature: signature, warnings: warnings, written: written,
                hiddenCharacters: hasHiddenCharacters ? true : nil)
        }

        /// What the user reads before signing: the address, key, format and the message (its lines escaped), then
        /// each warning after `!!!`.
        public var reviewText: String {
            var lines = [
                "Sign a message (not a transaction)",
                "address: \(address)", "key: \(origin) (\(script.rawValue))",
                "format: \(format.rawValue)", "message (\(message.count) bytes):",
            ]
            lines += displayLines.map { "  | \($0)" }
            lines += warnings.map { "!!! \($0)" }
            return lines.joined(separator: "\n")
        }
    }

    private let master: ExtendedPrivateKey
    private let network: Network

    /// A signer for the keys under `master` on `network`.
    public init(master: ExtendedPrivateKey, network: Network) {
        self.master = master
        self.network = network
    }

    /// Where the key is: an account kind, account, branch and index.
    public struct Location: Sendable, Equatable {
        public let script: AccountScript
        public let account: UInt32
        public let change: Bool
        public let index: UInt32

        public init(script: AccountScript, account: UInt32, change: Bool, index: UInt32) {
            self.script = script
            self.account = account
            self.change = change
            self.index = index
        }
    }

    /// Finds `address` among the single-key accounts of `account` (wpkh, sh-wpkh, pkh, tr), both branches, indexes
    /// below `indexLimit`.
    ///
    /// - Throws: `MessageSigningError.addressNotFound` or `.wrongNetwork`.
    public func locate(_ address: Address, account: UInt32, indexLimit: UInt32) throws(MessageSigningError) -> Location
    {
        guard address.networksSharingEncoding.contains(network) || address.network == network else {
            throw .wrongNetwork(address: address.description, vault: network.rawValue)
        }
        let target = address.scriptPubKey
        let scripts: [AccountScript] = [.wpkh, .tr, .shWpkh, .pkh]
        for script in scripts {
            let key: AccountKey
            do { key = try AccountKey(master: master, script: script, account: account, network: network) } catch {
                throw .signing(String(describing: error))
            }
            guard let descriptor = key.descriptor else { continue }
            for change in [false, true] {
                for index in 0..<indexLimit {
                    let candidate = try? descriptor.address(at: index, path: change ? 1 : 0, network: network)
                    if candidate?.scriptPubKey == target {
                        return Location(script: script, account: account, change: change, index: index)
                    }
                }
            }
        }
        throw .addressNotFound(
            address: address.description,
            searched: "account \(account), wpkh/tr/sh-wpkh/pkh, both branches, indexes 0…\(indexLimit - 1)")
    }

    /// The review of signing `message` at `location` in `format` (nil: the default for the kind).
    ///
    /// - Throws: `MessageSigningError.formatNotPossible`, `.messageSize`, `.signing`.
    public func review(message: [UInt8], at location: Location, format: MessageFormat?) throws(MessageSigningError)
        -> Review
    {
        guard (1...Self.maximumMessageSize).contains(message.count) else { throw .messageSize(message.count) }
        let chosen = format ?? MessageFormat.defaultFormat(for: location.script)
        let possible: Bool =
            switch (chosen, location.script) {
            case (_, .wshMulti): false
            case (.bip322Simple, let script): script == .wpkh || script == .tr
            case (.bip322Full, _): true
            case (.legacy, let script): script != .tr
            }
        guard possible else { throw .formatNotPossible(format: chosen.rawValue, script: location.script.rawValue) }
        let key: AccountKey
        let address: Address
        do {
            key = try AccountKey(
                master: master, script: location.script, account: location.account, network: network)
            address = try key.address(change: location.change, index: location.index)
        } catch { throw .signing(String(describing: error)) }
        guard let origin = key.addressOrigin(change: location.change, index: location.index) else {
            throw .signing("no key origin for index \(location.index)")
        }
        var warnings: [String] = []
        var lines: [String]
        var hidden = false
        if let text = String(validating: message, as: UTF8.self) {
            let shown = DisplayText.show(text, multiline: true)
            lines = shown.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            hidden = shown.hadHiddenCharacters
            if hidden { warnings.append(DisplayText.hiddenCharactersWarning) }
        } else {
            lines = ["hex: " + message.hexString]
            warnings.append("the message is not UTF-8 text; its bytes are shown in hex")
        }
        if chosen == .legacy, location.script != .pkh {
            warnings.append(
                "legacy signatures for segwit addresses use BIP137 header bytes; Bitcoin Core verifies legacy"
                    + " signatures only for pkh addresses")
        }
        return Review(
            address: address, script: location.script, origin: origin, format: chosen, message: message,
            displayLines: lines, warnings: warnings, hasHiddenCharacters: hidden)
    }

    /// Signs what `review` shows.
    ///
    /// - Throws: `MessageSigningError.signing`.
    public func sign(_ review: Review) throws(MessageSigningError) -> MessageSignature {
        let key: PrivateKey
        do { key = try master.derive(review.origin.path).privateKey } catch {
            throw .signing(String(describing: error))
        }
        let keyScript: BIP322.KeyScript =
            switch review.script {
            case .wpkh, .wshMulti: .p2wpkh
            case .tr: .p2tr
            case .shWpkh: .p2shP2wpkh
            case .pkh: .p2pkh
            }
        let signature: MessageSignature
        do {
            switch review.format {
            case .bip322Simple:
                signature = try BIP322.sign(message: review.message, key: key, script: keyScript, format: .simple)
            case .bip322Full:
                signature = try BIP322.sign(message: review.message, key: key, script: keyScript, format: .full)
            case .legacy:
                let kind: LegacyMessage.Kind =
                    switch review.script {
                    case .pkh: .p2pkh
                    case .shWpkh: .p2shP2wpkh
                    default: .p2wpkh
                    }
                signature = .legacy(try LegacyMessage.sign(review.message, key: key, kind: kind))
            }
        } catch { throw .signing(String(describing: error)) }
        // Check our own output before it leaves: the address must verify it.
        guard
            case .valid = MessageVerifier.verify(message: review.message, address: review.address, signature: signature)
        else { throw .signing("the signature made does not verify for \(review.address)") }
        return signature
    }
}
