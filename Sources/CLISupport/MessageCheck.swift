import ArgumentParser
import Bitcoin
import Foundation
import MessageSigning

/// The options of `message verify` on both executables (docs/signer.md and docs/watcher.md, "Message signing").
///
/// It checks a BIP322 or legacy signature of a message for an address: exit 0 when valid, 2 when invalid or
/// inconclusive.
public struct MessageVerifyOptions: ParsableArguments {
    @Option(help: "The address the message is signed for.") public var address: String
    @Option(help: "The message text (exactly as signed).") public var message: String?
    @Option(help: "Read the message from PATH, every byte as signed ('-' is stdin).") public var messageFile: String?
    @Option(help: "The signature: smp…/ful…/pof… (BIP322) or legacy base64.") public var signature: String?
    @Option(help: "Read the signature text from PATH ('-' is stdin).") public var signatureFile: String?
    @Flag(help: "Machine-readable JSON on stdout.") public var json = false

    public init() {}

    public func validate() throws {
        guard (message == nil) != (messageFile == nil) else {
            throw ValidationError("give the message with exactly one of --message and --message-file")
        }
        guard (signature == nil) != (signatureFile == nil) else {
            throw ValidationError("give the signature with exactly one of --signature and --signature-file")
        }
        guard messageFile != "-" || signatureFile != "-" else {
            throw ValidationError("only one of --message-file and --signature-file can be '-'")
        }
    }

    /// The message bytes: the option's UTF-8, or the file's bytes unchanged.
    public static func messageBytes(text: String?, file: String?) throws -> [UInt8] {
        if let text { return Array(text.utf8) }
        guard let file else { return [] }
        let data: Data
        if file == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let read = FileManager.default.contents(atPath: file) else {
                throw CLIError(.io, "cannot read \(file)")
            }
            data = read
        }
        return Array(data)
    }
}

/// The verification and its report, shared by both executables.
public enum MessageCheck {
    /// The `--json` output of `message verify`.
    public struct Output: Encodable, Sendable {
        public let address: String
        public let format: String
        public let result: String
        public let lockTime: UInt32
        public let sequence: UInt32
    }

    /// Verifies and prints; throws exit 2 unless valid (under `--json` the error object then says why).
    public static func run(_ options: MessageVerifyOptions) throws {
        let address: Address
        do { address = try Address(string: options.address.trimmingCharacters(in: .whitespacesAndNewlines)) } catch {
            throw CLIError(.invalidInput, "not an address: \(options.address) (\(error))")
        }
        let message = try MessageVerifyOptions.messageBytes(text: options.message, file: options.messageFile)
        let signatureText: String
        if let text = options.signature {
            signatureText = text
        } else {
            let bytes = try MessageVerifyOptions.messageBytes(text: nil, file: options.signatureFile)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw CLIError(.invalidInput, "the signature file is not text")
            }
            signatureText = text
        }
        let parsed: MessageSignature
        do { parsed = try MessageSignature(string: signatureText) } catch {
            throw CLIError(.invalidInput, "invalid signature: \(error.description)")
        }
        switch MessageVerifier.verify(message: message, address: address, signature: parsed) {
        case .valid(let lockTime, let sequence):
            if options.json {
                try JSONOutput.print(
                    Output(
                        address: address.description, format: parsed.formatName, result: "valid",
                        lockTime: lockTime, sequence: sequence))
            } else {
                var line = "valid: \(parsed.formatName) signature for \(address)"
                if lockTime != 0 || sequence != 0 { line += " (valid at time \(lockTime) and age \(sequence))" }
                print(line)
            }
        case .invalid(let reason):
            throw CLIError(.invalidInput, "invalid \(parsed.formatName) signature: \(reason)")
        case .inconclusive(let reason):
            throw CLIError(.invalidInput, "inconclusive: \(reason) (the signature could not be checked here)")
        }
    }
}
