import CLISupport
import Testing

@Suite("Leading shared options")
struct LeadingOptionsTests {
    let options = LeadingOptions(valued: ["data-dir", "wallet"], flags: ["json"])

    @Test("options before the subcommand move behind it, in order")
    func movesLeadingOptions() {
        #expect(
            options.reordered(["--wallet", "savings", "--json", "balance"]) == [
                "balance", "--wallet", "savings", "--json",
            ])
        #expect(
            options.reordered(["--data-dir=/tmp/a", "node", "set", "electrum://h:1"])
                == ["node", "set", "electrum://h:1", "--data-dir=/tmp/a"])
    }

    @Test("a -- terminator keeps what follows it as positional arguments")
    func keepsTerminator() {
        #expect(
            options.reordered(["--wallet", "w", "broadcast", "a.png", "--", "--odd-name.png"])
                == ["broadcast", "a.png", "--wallet", "w", "--", "--odd-name.png"])
    }

    @Test("nothing moves without a subcommand, without a value, or past an unknown option")
    func leavesOtherLinesAlone() {
        #expect(options.reordered(["balance", "--wallet", "w"]) == ["balance", "--wallet", "w"])
        #expect(options.reordered(["--wallet"]) == ["--wallet"])
        #expect(options.reordered(["--wallet", "w"]) == ["--wallet", "w"])
        #expect(options.reordered(["--help"]) == ["--help"])
        #expect(options.reordered(["--verbose", "--wallet", "w", "sync"]) == ["--verbose", "--wallet", "w", "sync"])
        #expect(options.reordered(["--json=1", "sync"]) == ["--json=1", "sync"])
        #expect(options.reordered(["--wallet", "w", "--", "sync"]) == ["--wallet", "w", "--", "sync"])
    }
}
