import ArgumentParser
import CLISupport
import Foundation
import Signer

/// `airlock-signer`: the offline signing appliance (DESIGN.md section 2).
@main
struct AirlockSigner: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airlock-signer",
        abstract:
            "Air-gapped Bitcoin signer: holds the encrypted seed, reviews and signs PSBTs read from QR PNGs or files.",
        discussion: """
            Runs on a machine that never touches a network. Data crosses the air gap only as QR-code PNG images \
            or files. Every run first installs a seccomp filter that makes socket() fail (see 'selftest'), and no \
            command unlocks the vault while a network interface is up (override: --allow-network or \
            AIRLOCK_ALLOW_NETWORK=1).

            Examples:
              airlock-signer init --words 24
              airlock-signer export --script wpkh --qr account.png
              airlock-signer sign unsigned-*.png --qr signed.png
            """,
        version: AirlockVersion.string,
        subcommands: [
            Init.self, Restore.self, Backup.self, Passwd.self, Info.self, Export.self, AddressCommand.self,
            Multisig.self, Audit.self, Selftest.self, Inspect.self, Sign.self,
        ]
    )

    /// Installs the air-gap filter before anything is parsed or read, then runs the command.
    static func main() async {
        do {
            try SeccompFilter.install()
        } catch {
            Diagnostics.print("error: \(error)")
            Foundation.exit(ExitStatus.refused.rawValue)
        }
        await CommandMain.run(Self.self, arguments: leadingOptions.reordered(Array(CommandLine.arguments.dropFirst())))
    }

    /// The vault options may also stand before the subcommand (`airlock-signer --vault PATH info`).
    static let leadingOptions = LeadingOptions(
        valued: ["vault", "password-file", "passphrase-file"], flags: ["allow-network", "json"])
}
