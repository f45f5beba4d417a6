import ArgumentParser
import CLISupport

/// `airlock-signer`: the offline signing appliance (DESIGN.md section 2).
@main
struct AirlockSigner: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airlock-signer",
        abstract: "Air-gapped Bitcoin signer: holds the encrypted seed, reviews and signs PSBTs read from QR PNGs or files.",
        discussion: """
            Runs on a machine that never touches a network. Data crosses the air gap only as QR-code PNG images
            or files.

            Examples:
              airlock-signer init --words 24
              airlock-signer export --script wpkh --qr account.png
              airlock-signer sign unsigned-*.png --qr signed.png
            """,
        version: AirlockVersion.string,
        subcommands: [Inspect.self]
    )
}
