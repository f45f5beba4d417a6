import ArgumentParser
import CLISupport
import Foundation
import WatcherWeb

/// `airlock-watcher serve`: the local web app (docs/watcher.md "serve").
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the watcher as a local web app on 127.0.0.1 (open the URL it prints).",
        discussion: """
            Listens on the loopback interface only (127.0.0.1, or ::1 with --listen ::1; any other address exits \
            1). Prints the URL to open, with a random token made for this start: the browser exchanges it for a \
            cookie. Pages: overview and sync, history and labels, coins, receive, send (the request as an \
            animated QR code), scan (the signer's answer through the camera, or an image, GIF or video), nodes, \
            wallets. --read-only serves the pages without send, broadcast or edits. Serves until interrupted.

            Examples:
              airlock-watcher serve
              airlock-watcher serve --port 8765 --read-only
            """)

    @OptionGroup var global: GlobalOptions

    @Option(help: "The port (default: a free one).") var port: Int = 0

    @Option(help: "The address to listen on: 127.0.0.1 (default) or ::1; nothing else.") var listen: String?

    @Flag(help: "Serve the pages without send, broadcast, or edits.") var readOnly = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
    }

    func run() async throws {
        try await ErrorReporting.run {
            let host: String
            do { host = try WebSecurity.listenAddress(listen) } catch let refused {
                throw CLIError(.usage, "\(refused)")
            }
            let context = try WatcherContext(global)
            let configuration = WebNodes.configuration(context, readOnly: readOnly)
            let json = global.json
            try await WebService.run(host: host, port: port, configuration: configuration) { url, port in
                if json {
                    // One line (DESIGN section 11), so a script reads it before the server's first request.
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    StandardOutput.write(try encoder.encode(ServeJSON(url: url, port: port)) + Data("\n".utf8))
                } else {
                    StandardOutput.write(Data("Open in your browser (only on this machine):\n  \(url)\n".utf8))
                }
            }
        }
    }
}

/// `serve --json`: the URL to open and the port.
struct ServeJSON: Encodable {
    let url: String
    let port: Int
}
