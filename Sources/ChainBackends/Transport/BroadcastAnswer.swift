import Bitcoin
import ChainCore
import Codecs

/// The txid a JSON-RPC server answers to a broadcast (`sendrawtransaction`, `blockchain.transaction.broadcast`); an
/// error the server reports is the node's rejection of the transaction.
func broadcastTxid(method: String, _ send: () async throws(ChainError) -> JSONValue) async throws(ChainError) -> Txid {
    let result: JSONValue
    do {
        result = try await send()
    } catch {
        if case .server(_, let message) = error { throw .rejected(message) }
        throw error
    }
    guard let text = result.string, let txid = try? Txid(hex: text) else {
        throw .protocolViolation("\(method) returned \(result)")
    }
    return txid
}
