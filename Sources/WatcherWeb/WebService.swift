/// `serve`'s one entry point: binds the loopback address, makes the token of this start, tells the caller the URL to
/// open, and serves the web app until the process ends.
public enum WebService {
    /// Serves `configuration` on `host` (checked by `WebSecurity.listenAddress`) and `port` (0: a free one);
    /// `ready` gets the URL with the token and the port once the socket is bound.
    public static func run(
        host: String, port: Int, configuration: WebConfiguration,
        ready: @escaping @Sendable (_ url: String, _ port: Int) throws -> Void
    ) async throws {
        let box = AppBox()
        try await WebServer.run(
            host: host, port: port,
            ready: { bound in
                let security = WebSecurity(port: bound)
                box.app = WebApp(configuration: configuration, security: security)
                let shown = host.contains(":") ? "[\(host)]" : host
                try ready("http://\(shown):\(bound)/?token=\(security.token)", bound)
            },
            respond: { request in
                guard let app = box.app else { return .text("starting", status: 503) }
                return await app.respond(request)
            })
    }
}

/// The app, made once the port is known (the Host check names it).
final class AppBox: @unchecked Sendable {
    // Written once in `ready`, before the first request is accepted; read only afterwards.
    var app: WebApp?
}
