import Bitcoin
// FuzzElectrum: server bytes through the Electrum client's line reader (LineChannelHandler on an EmbeddedChannel,
// with three requests waiting) and every answer's fields through the checks the client applies. Any trap is a bug.
import ChainBackends
import ChainCore
import Codecs
import NIOCore
import NIOEmbedded

extension FuzzTargets {
    /// One input of FuzzElectrum: the input is what the server sends, split in two reads at its middle.
    public static func electrum(_ bytes: [UInt8]) {
        electrum(bytes, handler: LineChannelHandler(host: "fuzz", port: 1))
    }

    /// `electrum(_:)` with the handler given, so a test can see the channel let go of it (FuzzReplayTests).
    static func electrum(_ bytes: [UInt8], handler: LineChannelHandler) {
        let channel = EmbeddedChannel()
        guard (try? channel.pipeline.syncOperations.addHandler(handler)) != nil else { return }
        let promises = (1...3).map { id in
            let promise = channel.eventLoop.makePromise(of: JSONElement.self)
            handler.register(id: id, promise: promise)
            return promise
        }
        var answers: [JSONValue] = []
        for promise in promises {
            promise.futureResult.whenSuccess { answers.append($0.value) }
        }
        let middle = bytes.count / 2
        _ = try? channel.writeInbound(ByteBuffer(bytes: bytes[..<middle]))
        _ = try? channel.writeInbound(ByteBuffer(bytes: bytes[middle...]))
        // Closes (every promise still waiting fails) and runs the loop that removes the handlers, also when the
        // handler closed the channel itself on a broken line: without that the pipeline and the channel keep each
        // other alive, a leak per input.
        _ = try? channel.finish(acceptAlreadyClosed: true)
        let checker = ReplyChecker(server: "electrum://fuzz:1")
        for answer in answers {
            precondition(answer["id"]?.int.map { (1...3).contains($0) } == true, "an answer for an id never sent")
            interpretElectrum(answer["result"] ?? .null, checker: checker)
        }
    }

    /// The field checks of `ElectrumClient` on one result, read as each reply type it could be.
    static func interpretElectrum(_ result: JSONValue, checker: ReplyChecker) {
        _ = try? checker.height(result["height"], "height")
        _ = try? checker.feeRate(result, "blockchain.estimatefee", satsPerKVBPerUnit: 100_000_000)
        if let hex = result["hex"]?.string { _ = try? BlockHeader(hex: hex) }
        if let hex = result.string { _ = try? BlockHeader(hex: hex) }
        for item in result.array ?? [] {
            _ = try? checker.int(item["height"], "get_history height", in: -1...ReplyChecker.maxHeight)
        }
        if let position = try? checker.count(result["pos"], "pos", limit: (1 << 30) - 1),
            let branch = result["merkle"]?.array?.compactMap(\.string),
            let proof = try? MerkleProof(position: position, displayHex: branch),
            let txid = try? Txid(bytes: [UInt8](repeating: 0, count: 32))
        {
            _ = proof.root(for: txid)
        }
    }
}
