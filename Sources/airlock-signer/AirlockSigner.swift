import AirGap
import ArgumentParser
import CLISupport
import Foundation
import Signer

/// `airlock-signer`: the offline signing appliance (docs/architecture.md section 2).
@main
struct AirlockSigner: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airlock-signer",
        abstract:
            "Air-gapped Bitcoin and Ethereum signer: holds the encrypted seed, reviews and signs what it reads from QR PNGs or files.",
        discussion: """
            Runs on a machine that never touches a network. Data crosses the air gap only as QR-code PNG images \
            or files: Bitcoin PSBTs, and Ethereum transactions, messages and typed data as EIP-4527 \
            ur:eth-sign-request (the same seed, m/44'/60'/0'/0/N; export --chain eth for the watcher or MetaMask). \
            Every run first installs a seccomp filter that makes socket() fail (see 'selftest'), and no \
            command unlocks the vault while a network interface is up (override: --allow-network or \
            AIRLOCK_ALLOW_NETWORK=1).

            Examples:
              airlock-signer init --words 24
              airlock-signer export --script wpkh --qr account.png
              airlock-signer sign unsigned-*.png --qr signed.png
              airlock-signer export --chain eth --qr eth-account.png
              airlock-signer sign request.png --qr signature.png
            """,
        version: AirlockVersion.string,
        subcommands: [
            Init.self, Restore.self, Backup.self, Passwd.self, Info.self, Export.self, AddressCommand.self,
            Multisig.self, Key.self, Token.self, ClearSigningCommand.self, Message.self, Audit.self, Selftest.self,
            Inspect.self, Sign.self,
        ]
    )

    /// Hardens the process before anything is parsed or read (docs/architecture.md section 5): closes inherited descriptors,
    /// turns core dumps off, installs the seccomp filter on every thread; then runs the command.
    ///
    /// Two hidden first arguments run fixed routines instead of a command, without reading any file: the image
    /// decoder child (`IsolatedImageDecoder`, under the stricter decoder filter) and the selftest's probe child,
    /// which is started by `selftest` before its parent's filter goes on and installs the filter itself.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first?.hasPrefix("__airlock-") == true { ProcessHardening.dieWithParent(getppid()) }
        do { try ProcessHardening.harden() } catch { fail(error) }
        signal(SIGPIPE, SIG_IGN)  // a child that stops reading its input must not end the signer
        if arguments.first == SyscallProbe.childArgument {
            let report = SyscallProbe.runPreFilterChild()
            FileHandle.standardOutput.write(Data(report.serialized()))
            Foundation.exit(0)
        }
        if arguments.first == IsolatedImageDecoder.childArgument {
            do { try SyscallProbe.enterDecoderSandbox() } catch { fail(error) }
            Foundation.exit(IsolatedImageDecoder.runChild())
        }
        if arguments.first == SyscallProbe.decoderArgument {
            do { try SeccompFilter.install() } catch { fail(error) }
            FileHandle.standardOutput.write(Data(SyscallProbe.runDecoderProbe().serialized()))
            Foundation.exit(0)
        }
        let reordered = leadingOptions.reordered(arguments)
        // The probe child only for a selftest that will run: not for --help or a command line that fails to parse,
        // which exit at once and would leave the probe writing into a closed pipe.
        if reordered.first == "selftest", (try? Self.parseAsRoot(reordered)) is Selftest { Selftest.startProbeChild() }
        do { try SeccompFilter.install() } catch { fail(error) }
        IsolatedImageDecoder.enable()
        await CommandMain.run(Self.self, arguments: reordered)
    }

    private static func fail(_ error: any Error) -> Never {
        Diagnostics.print("error: \(error)")
        Foundation.exit(ExitStatus.refused.rawValue)
    }

    /// The vault options may also stand before the subcommand (`airlock-signer --vault PATH info`).
    static let leadingOptions = LeadingOptions(
        valued: ["vault", "password-file", "passphrase-file"], flags: ["allow-network", "json"])
}
