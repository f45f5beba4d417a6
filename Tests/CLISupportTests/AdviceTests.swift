import AirgapTransport
import ArgumentParser
import Foundation
import Testing

@testable import CLISupport

/// Issue 27's messages as advice: did-you-mean, plain words for library errors, frame captions, file names.
@Suite("Messages as advice")
struct AdviceTests {
    struct Tool: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tool", subcommands: [Sign.self, Node.self])
    }
    struct Sign: ParsableCommand {
        @Option var amount: String?
        @Flag var yes = false
        @Argument var input: [String] = []
    }
    struct Node: ParsableCommand {
        static let configuration = CommandConfiguration(subcommands: [Show.self])
    }
    struct Show: ParsableCommand {}

    @Test("a mistyped command, at any level, gets the nearest name")
    func commands() {
        #expect(
            CommandAdvice.advice(for: Tool.self, arguments: ["sing"])?.message.contains("did you mean 'sign'?") == true)
        #expect(
            CommandAdvice.advice(for: Tool.self, arguments: ["node", "shwo"])?.message.contains("did you mean 'show'?")
                == true)
        #expect(
            CommandAdvice.advice(for: Tool.self, arguments: ["zzzzzz"])?.message.contains("the commands are") == true)
        #expect(CommandAdvice.advice(for: Tool.self, arguments: ["sign", "a.psbt", "--yes"]) == nil)
    }

    @Test("an unknown option gets the nearest known one; known options pass")
    func options() {
        let advice = CommandAdvice.advice(for: Tool.self, arguments: ["sign", "--amout", "1btc"])
        #expect(advice?.message.contains("unknown option --amout") == true)
        #expect(advice?.message.contains("did you mean --amount?") == true)
        #expect(CommandAdvice.advice(for: Tool.self, arguments: ["sign", "--amount=1btc", "x"]) == nil)
    }

    /// A root whose default subcommand is a group (the watcher's Ethereum command line: `send` means `eth send`).
    struct Routed: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tool", subcommands: [Group.self], defaultSubcommand: Group.self)
    }
    struct Group: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "group", subcommands: [Sign.self])
    }
    /// A root whose default subcommand is a leaf: a typo is still a typo of the root's commands.
    struct Leafy: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "tool", subcommands: [Sign.self, Show.self], defaultSubcommand: Show.self)
    }

    @Test("a word naming a subcommand of the default subcommand goes there; a typo under a leaf default is still named")
    func defaultSubcommand() {
        let advice = CommandAdvice.advice(for: Routed.self, arguments: ["sign", "--amout", "1btc"])
        #expect(advice?.message.contains("unknown option --amout for 'tool group sign'") == true)
        #expect(advice?.message.contains("did you mean --amount?") == true)
        #expect(CommandAdvice.advice(for: Routed.self, arguments: ["sign", "--amount", "1btc"]) == nil)
        #expect(
            CommandAdvice.advice(for: Leafy.self, arguments: ["sing"])?.message.contains("did you mean 'sign'?") == true
        )
    }

    @Test("edit distance counts a swap of neighbours as one")
    func distance() {
        #expect(CommandAdvice.distance("sing", "sign") == 1)
        #expect(CommandAdvice.distance("balanse", "balance") == 1)
        #expect(CommandAdvice.distance("", "abc") == 3)
        #expect(CommandAdvice.closest(to: "sign", among: ["inspect", "export"]) == nil)
    }

    @Test("library internals become words; long hex is cut; plain text and keys are left alone")
    func plainMessages() {
        #expect(PlainMessage.clean("invalidChecksum") == "invalid checksum")
        #expect(
            PlainMessage.clean("bad address: invalidEncoding(Bitcoin.EncodingError.unexpectedEnd)")
                == "bad address: invalid encoding (unexpected end)")
        #expect(
            PlainMessage.clean(#"cannot read a.png: truncatedChunk(type: "IDAT", declaredLength: 9, available: 2)"#)
                == #"cannot read a.png: truncated chunk (type: "IDAT", declared length: 9, available: 2)"#)
        #expect(PlainMessage.clean("error: connection refused (errno: 111)").contains("errno") == false)
        #expect(
            PlainMessage.clean(#"invalid descriptor: syntax(expected: "wpkh(…)", position: 0)"#)
                == #"invalid descriptor: syntax (expected: "wpkh(…)", position: 0)"#)
        #expect(PlainMessage.clean("wsh(and_v(v:pk(A),older(10)))") == "wsh(and_v(v:pk(A),older(10)))")
        let hex = String(repeating: "ab", count: 100)
        let cut = PlainMessage.clean("rejected: txn-already-known \(hex)")
        #expect(!cut.contains(hex) && cut.contains("(100 bytes)"))
        let key = "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjcMoa"
        #expect(PlainMessage.clean("not a key: \(key)") == "not a key: \(key)")
        #expect(PlainMessage.clean("refused: the fee is too high") == "refused: the fee is too high")
    }

    @Test("captions name the payload and the frame; one code has no k of n")
    func captions() {
        let caption = FrameCaption(what: "PSBT request", shortID: "1a2b3c4d")
        #expect(caption.line(part: 2, of: 14) == "Airlock · PSBT request 1a2b3c4d · 2 of 14")
        #expect(caption.line(part: 1, of: 1) == "Airlock · PSBT request 1a2b3c4d")
        #expect(FrameCaption.grouped("bcrt1qxy2kgd") == "bcrt 1qxy 2kgd")
        #expect(FrameCaption.fingerprint(inDescriptor: "wpkh([73c5da0a/84h/1h/0h]tpub…/<0;1>/*)") == "73c5da0a")
        #expect(FrameCaption.describing(.address("bc1q")).what == "address")
    }

    @Test("a missing NAME.png points to the frames written, and a frame name to the one code")
    func fileSuggestions() throws {
        let dir = NSTemporaryDirectory() + "advice-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["spend-01of03.png", "spend-02of03.png", "spend-03of03.png", "one.png"] {
            FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: Data())
        }
        #expect(InputReader.suggestion(for: "\(dir)/spend.png")?.contains("\(dir)/spend-*.png") == true)
        #expect(InputReader.suggestion(for: "\(dir)/one-*.png") == "\(dir)/one.png")
        #expect(InputReader.suggestion(for: "\(dir)/one-01of02.png") == "\(dir)/one.png")
        #expect(InputReader.suggestion(for: "\(dir)/other.png") == nil)
    }

    @Test("an amount needs its unit")
    func amounts() throws {
        #expect(try AmountArgument.bitcoin("0.01btc").sats == 1_000_000)
        #expect(try AmountArgument.bitcoin("1000sat").sats == 1_000)
        #expect(throws: CLIError.self) { try AmountArgument.bitcoin("10000") }
        do {
            _ = try AmountArgument.bitcoin("0.5")
        } catch {
            #expect(error.status == .usage && error.message.contains("0.5btc") && error.message.contains("0.5sat"))
        }
    }
}
