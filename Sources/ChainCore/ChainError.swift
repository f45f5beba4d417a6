import Bitcoin

/// Errors from talking to a chain backend (an Electrum server, Bitcoin Core, an Esplora server).
public enum ChainError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The node URL cannot be used: what is wrong with it.
    case invalidURL(String)
    /// Connecting failed: host, port and the reason.
    case connectionFailed(host: String, port: Int, reason: String)
    /// The connection closed before the answer came.
    case connectionClosed(host: String, port: Int)
    /// No answer within the time limit: the operation and the limit in seconds.
    case timeout(operation: String, seconds: Int)
    /// TLS could not be set up or the handshake failed.
    case tls(String)
    /// The server answered something that does not follow the protocol.
    case protocolViolation(String)
    /// The server reported an error for a request: its code and message.
    case server(code: Int, message: String)
    /// An HTTP status other than success: the status and the start of the body.
    case http(status: Int, body: String)
    /// The node refused a transaction: its reason.
    case rejected(String)
    /// The server's data failed verification (a transaction, a merkle proof, a header): it lies or is broken.
    case verificationFailed(String)
    /// The backend cannot do this (e.g. history of spent coins through `scantxoutset`).
    case unsupported(String)
    /// A number, length or index in a server's reply is missing, not a number, or out of range: the server, the field
    /// and (the start of) what it sent.
    case invalidField(server: String, field: String, value: String)
    /// The server has no fee estimate for the target: the user must give the rate (`--fee-rate`).
    case noFeeEstimate(server: String, targetBlocks: Int)
    /// The node is on another network or chain than the wallet: the whole message, naming both and what to do.
    case wrongChain(String)
    /// The node ran the transaction (`eth_estimateGas`, `eth_call`) and the contract reverted: its reason (the
    /// contract's own words, decoded from `Error(string)`), or nil when it gave none that can be read.
    case reverted(String?)

    public var description: String {
        switch self {
        case .invalidURL(let why): "invalid node URL: \(why)"
        case .connectionFailed(let host, let port, let reason):
            "could not connect to \(port == 0 ? host : "\(host):\(port)"): \(Self.plainConnectReason(reason, host: host))"
        case .connectionClosed(let host, let port): "\(host):\(port) closed the connection"
        case .timeout(let operation, let seconds): "no answer to \(operation) within \(seconds) s"
        case .tls(let why): "TLS: \(why)"
        case .protocolViolation(let why): "the server broke the protocol: \(why)"
        case .server(let code, let message): "the server reported error \(code): \(message)"
        case .http(let status, let body): "HTTP \(status): \(body)"
        case .rejected(let reason): "the node rejected the transaction: \(reason)"
        case .verificationFailed(let why): "the server's data failed verification (it may be lying): \(why)"
        case .unsupported(let why): "not supported by this backend: \(why)"
        case .invalidField(let server, let field, let value):
            "\(server) sent an invalid \(field): \(value)"
        case .noFeeEstimate(let server, let target):
            "\(server) has no fee estimate for \(target) blocks; give the rate with --fee-rate SAT_PER_VB"
        case .wrongChain(let why): why
        case .reverted(let reason?):
            "the transaction would fail: the contract refuses it (\"\(DisplayText.show(String(reason.prefix(200))).text)\")"
        case .reverted(nil): "the transaction would fail: the contract refuses it (it gives no reason)"
        }
    }

    /// What a socket library said about a failed connection, in words with the advice that goes with it (NIO's
    /// `SingleConnectionFailure(… errno: 111)` is "connection refused — is the node running?").
    static func plainConnectReason(_ reason: String, host: String = "") -> String {
        // Airlock's own note after the library's text stays ("… (not connecting directly)" for a proxy).
        let note = " (not connecting directly)"
        let kept = reason.hasSuffix(note) ? note : ""
        let reason = String(reason.dropLast(kept.count))
        let what = host.hasPrefix("SOCKS proxy") ? "the proxy" : "the node"
        let lower = reason.lowercased()
        let known: [(needles: [String], text: String)] = [
            (["errno: 111", "connection refused", "econnrefused"], "connection refused — is \(what) running?"),
            (
                ["errno: 110", "timed out", "timeout"],
                "the connection timed out — is the address right and \(what) up?"
            ),
            (["errno: 113", "no route to host"], "no route to the host — check the address and the network"),
            (["errno: 101", "network is unreachable"], "the network is unreachable — are you online?"),
            (["errno: 104", "connection reset"], "the node closed the connection — is it the right port?"),
            (
                ["resolution", "name or service not known", "nodename nor servname", "unknown host", "eai_"],
                "cannot find that host name — check the URL"
            ),
        ]
        for entry in known where entry.needles.contains(where: { lower.contains($0) }) { return entry.text + kept }
        // A library's own type names are no help to the reader; say what failed.
        if reason.contains(/[A-Z][a-z]+[A-Z][A-Za-z]*\(/) {
            return "the connection failed" + kept
        }
        return reason + kept
    }
}
