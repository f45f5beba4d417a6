import Bitcoin
import BitcoinCrypto
import ChainCore
import Codecs
import Foundation
import NIOCore
import NIOEmbedded
import Testing
import Watcher

@testable import ChainBackends

/// The Electrum client against scripted servers on NIO's in-memory `NIOAsyncTestingChannel` (NIOEmbedded): each
/// misbehaviour is a clear `ChainError`, and the well-formed oddities (batch answers out of order) are accepted.
@Suite("Electrum client transcripts (NIOEmbedded)")
struct ElectrumTranscriptTests {
    /// Channels handed out one per (re)connect; when none is left, connecting fails.
    final class Server: @unchecked Sendable {
        let channels: [NIOAsyncTestingChannel]
        private let lock = NSLock()
        private var used = 0

        init(count: Int = 1) { channels = (0..<count).map { _ in NIOAsyncTestingChannel() } }

        var first: NIOAsyncTestingChannel { channels[0] }

        func connection() -> JSONRPCConnection {
            JSONRPCConnection(host: "test", port: 1, timeout: 30) {
                (handler: LineChannelHandler) async throws(ChainError) -> any Channel in
                guard let channel = self.next() else {
                    throw .connectionFailed(host: "test", port: 1, reason: "connection refused")
                }
                do {
                    try await channel.pipeline.addHandler(handler)
                    try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
                } catch {
                    throw .connectionFailed(host: "test", port: 1, reason: "\(error)")
                }
                return channel
            }
        }

        private func next() -> NIOAsyncTestingChannel? {
            lock.lock()
            defer { lock.unlock() }
            guard used < channels.count else { return nil }
            used += 1
            return channels[used - 1]
        }
    }

    /// The next request line the client wrote, parsed (an object, or an array for a batch).
    static func request(on channel: NIOAsyncTestingChannel) async throws -> JSONValue {
        var buffer = try await channel.waitForOutboundWrite(as: ByteBuffer.self)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        #expect(bytes.last == UInt8(ascii: "\n"))
        return try JSONValue.parse(bytes.dropLast())
    }

    /// The `ChainError` a task ended with; nil when it succeeded or threw something else.
    static func error<T>(of task: Task<T, any Error>) async -> ChainError? {
        do {
            _ = try await task.value
            return nil
        } catch {
            return error as? ChainError
        }
    }

    static func send(_ text: String, on channel: NIOAsyncTestingChannel) async throws {
        try await channel.writeInbound(ByteBuffer(string: text))
    }

    static func answer(_ request: JSONValue, result: JSONValue) -> JSONValue {
        .object(["jsonrpc": "2.0", "id": request["id"] ?? .null, "result": result])
    }

    static func line(_ value: JSONValue) -> String { String(decoding: value.serialized(), as: UTF8.self) + "\n" }

    @Test("a well-formed answer is the result (the control)")
    func wellFormed() async throws {
        let server = Server()
        let connection = server.connection()
        let call = Task { try await connection.call("server.ping") }
        let request = try await Self.request(on: server.first)
        #expect(request["method"]?.string == "server.ping")
        try await Self.send(Self.line(Self.answer(request, result: .null)), on: server.first)
        #expect(try await call.value == .null)
    }

    @Test("garbage instead of JSON is a protocol violation")
    func garbage() async throws {
        let server = Server()
        let connection = server.connection()
        let call = Task { () async throws -> JSONValue in try await connection.call("server.ping") }
        _ = try await Self.request(on: server.first)
        try await Self.send("HTTP/1.1 400 Bad Request\r\n\u{0}\u{1}garbage\n", on: server.first)
        guard case .protocolViolation(let why) = await Self.error(of: call) else {
            Issue.record("expected a protocol violation")
            return
        }
        #expect(why.hasPrefix("not JSON"))
    }

    @Test("a truncated line, then the server closes: the connection is reported closed, no result made up")
    func truncatedLine() async throws {
        let server = Server()
        let connection = server.connection()
        let call = Task { () async throws -> JSONValue in try await connection.call("server.ping") }
        let request = try await Self.request(on: server.first)
        let whole = Self.line(Self.answer(request, result: "pong"))
        try await Self.send(String(whole.prefix(whole.count / 2)), on: server.first)
        try await server.first.close()
        // One reconnect is tried (reads are idempotent); none is left, so the error is the refused connection.
        await #expect(throws: ChainError.connectionFailed(host: "test", port: 1, reason: "connection refused")) {
            try await call.value
        }
    }

    @Test("a 10 MB line is refused as a protocol violation and the connection dropped")
    func hugeLine() async throws {
        let server = Server()
        let connection = server.connection()
        let call = Task { () async throws -> JSONValue in try await connection.call("server.ping") }
        let request = try await Self.request(on: server.first)
        let id = request["id"]?.int ?? 0
        let huge =
            "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"result\":\"" + String(repeating: "a", count: 10_000_000) + "\"}\n"
        try await Self.send(huge, on: server.first)
        guard case .protocolViolation(let why) = await Self.error(of: call) else {
            Issue.record("expected a protocol violation")
            return
        }
        #expect(why.contains("longer than"))
        #expect(try await server.first.isActive == false)
    }

    @Test("answers with ids never sent are ignored; the request then times out with its name")
    func wrongIDs() async throws {
        let server = Server()
        let connection = server.connection()
        let call = Task { () async throws -> JSONValue in
            try await connection.call("blockchain.headers.subscribe")
        }
        let request = try await Self.request(on: server.first)
        let id = request["id"]?.int ?? 0
        try await Self.send(
            Self.line(.object(["jsonrpc": "2.0", "id": .number(Double(id + 1000)), "result": 1])), on: server.first)
        try await Self.send(
            Self.line(.object(["jsonrpc": "2.0", "id": .string("\(id)"), "result": 1])), on: server.first)
        await server.first.testingEventLoop.advanceTime(by: .seconds(31))
        await #expect(throws: ChainError.timeout(operation: "blockchain.headers.subscribe", seconds: 30)) {
            try await call.value
        }
    }

    @Test("batch answers out of order are matched by id")
    func batchOutOfOrder() async throws {
        let server = Server()
        let connection = server.connection()
        let methods = ["a.first", "b.second", "c.third"]
        let batch = Task { () async throws -> [Result<JSONElement, ChainError>] in
            try await connection.batch(methods.map { RPCRequest($0) })
        }
        let request = try await Self.request(on: server.first)
        let items = try #require(request.array)
        #expect(items.compactMap { $0["method"]?.string } == methods)
        let answers = items.reversed().map { Self.answer($0, result: $0["method"] ?? .null) }
        try await Self.send(Self.line(.array(answers)), on: server.first)
        let results = try await batch.value
        #expect(try results.map { try $0.get().string } == methods)
    }

    @Test("an error object becomes the server's error with its code and message")
    func errorObject() async throws {
        let server = Server()
        let connection = server.connection()
        let call = Task { () async throws -> JSONValue in
            try await connection.call("blockchain.transaction.get", ["00"])
        }
        let request = try await Self.request(on: server.first)
        try await Self.send(
            Self.line(
                .object([
                    "jsonrpc": "2.0", "id": request["id"] ?? .null,
                    "error": .object(["code": -32600, "message": "invalid tx hash"]),
                ])), on: server.first)
        await #expect(throws: ChainError.server(code: -32600, message: "invalid tx hash")) { try await call.value }
    }

    @Test("a server that closes mid-batch: the batch fails as a whole, nothing partial is returned")
    func closesMidBatch() async throws {
        let server = Server(count: 2)
        let connection = server.connection()
        let batch = Task { () async throws -> [Result<JSONElement, ChainError>] in
            try await connection.batch([RPCRequest("one"), RPCRequest("two"), RPCRequest("three")])
        }
        for channel in server.channels {
            let items = try #require(try await Self.request(on: channel).array)
            try await Self.send(Self.line(Self.answer(items[0], result: 1)), on: channel)
            try await channel.close()
        }
        await #expect(throws: ChainError.connectionClosed(host: "test", port: 1)) { try await batch.value }
    }

    @Test("a sync whose server closes mid-batch leaves the wallet's database unchanged")
    func syncLeavesStoreUnchanged() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("airlock-\(UUID().uuidString)")
        let store = try Store(directory: directory.path)
        let account = try AccountImport.parse(
            "wpkh([73c5da0a/84h/1h/0h]tpubDC8msFGeGuwnKG9Upg7DM2b4DaRqg3CUZa5g8v2SRQ6K4NSkxUgd7HsL2XVWbVm39yBA4LAxysQAm397zwQSQoQgewGiYZqrA9DsP4zbQ1M/<0;1>/*)",
            network: .regtest)
        let wallet = try store.createWallet(
            WalletRecord(
                name: "w", network: .regtest, gapLimit: 20,
                descriptors: [.external: account.external.description, .internal: account.change?.description ?? ""]))
        let walletID = try wallet.requireID()
        let server = Server()
        let client = ElectrumClient(connection: server.connection(), network: .regtest, url: "electrum://test:1")
        let sync = Task { () async throws -> SyncSummary in
            try await WalletSync(store: store, wallet: wallet, source: client).run()
        }
        // A batch (pipelined: more are in flight) asks for the tip, then the histories; the tip is a regtest header
        // that meets its target, one history is answered, then the server goes away.
        let items = try #require(try await Self.request(on: server.first).array)
        #expect(items.first?["method"]?.string == "blockchain.headers.subscribe")
        #expect(items.dropFirst().allSatisfy { $0["method"]?.string == "blockchain.scripthash.get_history" })
        let header = try Self.minedRegtestHeader()
        try await Self.send(
            Self.line(
                .array([
                    Self.answer(items[0], result: .object(["height": 5, "hex": .string(header.bytes.hexString)])),
                    Self.answer(items[1], result: []),
                ])), on: server.first)
        try await server.first.close()
        await #expect(throws: SyncError.chain(.connectionFailed(host: "test", port: 1, reason: "connection refused"))) {
            try await sync.value
        }
        #expect(try store.addresses(walletID: walletID).isEmpty)
        #expect(try store.transactions(walletID: walletID).isEmpty)
        #expect(try store.syncedTip(walletID: walletID) == nil)
    }

    @Test("two batches in flight on one connection: each gets its own answers, whichever comes first")
    func pipelinedBatches() async throws {
        let server = Server()
        let connection = server.connection()
        let first = Task { () async throws -> [Result<JSONElement, ChainError>] in
            try await connection.batch([RPCRequest("a.one"), RPCRequest("a.two")])
        }
        let firstItems = try #require(try await Self.request(on: server.first).array)
        let second = Task { () async throws -> [Result<JSONElement, ChainError>] in
            try await connection.batch([RPCRequest("b.one"), RPCRequest("b.two")])
        }
        let secondItems = try #require(try await Self.request(on: server.first).array)
        // The second batch is answered before the first.
        for items in [secondItems, firstItems] {
            try await Self.send(
                Self.line(.array(items.map { Self.answer($0, result: $0["method"] ?? .null) })), on: server.first)
        }
        #expect(try await first.value.map { try $0.get().string } == ["a.one", "a.two"])
        #expect(try await second.value.map { try $0.get().string } == ["b.one", "b.two"])
    }

    /// A chain for the sync transcripts: a transaction paying `script`, alone in the block at `height`, whose header
    /// (merkle root = the txid) and its predecessor's are mined to the regtest target and linked.
    struct OneTransactionChain {
        let script = Script([0x00, 0x14] + [UInt8](repeating: 0x42, count: 20))
        let height = 7
        let transaction: Transaction
        let previous: BlockHeader
        let block: BlockHeader

        init() throws {
            let foreign = try Txid(bytes: [UInt8](repeating: 9, count: 32))
            transaction = Transaction(
                inputs: [TxIn(previousOutput: OutPoint(txid: foreign, vout: 0), sequence: .final)],
                outputs: [TxOut(value: try Amount(sats: 50_000), scriptPubKey: script)])
            previous = try ElectrumTranscriptTests.minedRegtestHeader()
            block = try ElectrumTranscriptTests.minedRegtestHeader(
                previous: previous.hash, merkleRoot: transaction.txid.bytes)
        }

        /// The answers to a sync's two round trips; `headers` replaces the block.headers answer.
        func serve(_ server: NIOAsyncTestingChannel, headers: JSONValue? = nil) async throws {
            let first = try #require(try await ElectrumTranscriptTests.request(on: server).array)
            try await ElectrumTranscriptTests.send(
                ElectrumTranscriptTests.line(
                    .array([
                        ElectrumTranscriptTests.answer(
                            first[0],
                            result: .object(["height": .number(Double(height)), "hex": .string(block.bytes.hexString)])),
                        ElectrumTranscriptTests.answer(
                            first[1],
                            result: [
                                .object([
                                    "tx_hash": .string(transaction.txid.hexString), "height": .number(Double(height)),
                                ])
                            ]),
                    ])), on: server)
            let second = try #require(try await ElectrumTranscriptTests.request(on: server).array)
            #expect(
                second.compactMap { $0["method"]?.string } == [
                    "blockchain.transaction.get", "blockchain.transaction.get_merkle", "blockchain.block.headers",
                ])
            // One range: the block and its predecessor.
            #expect(second[2]["params"] == [.number(Double(height - 1)), 2])
            let range = JSONValue.object([
                "count": 2, "hex": .string((previous.bytes + block.bytes).hexString), "max": 2016,
            ])
            try await ElectrumTranscriptTests.send(
                ElectrumTranscriptTests.line(
                    .array([
                        ElectrumTranscriptTests.answer(second[0], result: .string(transaction.serialized().hexString)),
                        ElectrumTranscriptTests.answer(
                            second[1],
                            result: .object(["block_height": .number(Double(height)), "merkle": [], "pos": 0])),
                        ElectrumTranscriptTests.answer(second[2], result: headers ?? range),
                    ])), on: server)
        }
    }

    @Test("a sync in two round trips: histories, then transactions, proofs and one header range (the control)")
    func syncWithHeaderRange() async throws {
        let chain = try OneTransactionChain()
        let server = Server()
        let client = ElectrumClient(connection: server.connection(), network: .regtest, url: "electrum://test:1")
        let sync = Task { try await client.sync(SyncRequest(scripts: [chain.script])) }
        try await chain.serve(server.first)
        let update = try await sync.value
        #expect(update.transactions[chain.transaction.txid] == chain.transaction)
        #expect(
            update.anchors[chain.transaction.txid]
                == BlockAnchor(height: chain.height, blockHash: chain.block.hashHex, verified: true))
    }

    @Test("a header range with fewer headers than asked for is refused")
    func shortHeaderRange() async throws {
        let chain = try OneTransactionChain()
        let server = Server()
        let client = ElectrumClient(connection: server.connection(), network: .regtest, url: "electrum://test:1")
        let sync = Task { try await client.sync(SyncRequest(scripts: [chain.script])) }
        try await chain.serve(
            server.first, headers: .object(["count": 1, "hex": .string(chain.block.bytes.hexString), "max": 2016]))
        guard case .protocolViolation(let why) = await Self.error(of: sync) else {
            Issue.record("expected a protocol violation")
            return
        }
        #expect(why.contains("block.headers"))
    }

    @Test("a header range whose block does not link to its predecessor is refused")
    func unlinkedHeaderRange() async throws {
        let chain = try OneTransactionChain()
        let other = try Self.minedRegtestHeader(previous: [UInt8](repeating: 1, count: 32), merkleRoot: [])
        let server = Server()
        let client = ElectrumClient(connection: server.connection(), network: .regtest, url: "electrum://test:1")
        let sync = Task { try await client.sync(SyncRequest(scripts: [chain.script])) }
        try await chain.serve(
            server.first,
            headers: .object(["count": 2, "hex": .string((other.bytes + chain.block.bytes).hexString), "max": 2016]))
        guard case .verificationFailed(let why) = await Self.error(of: sync) else {
            Issue.record("expected a verification failure")
            return
        }
        #expect(why.contains("does not link"))
    }

    static func minedRegtestHeader(previous: [UInt8] = [], merkleRoot: [UInt8] = []) throws -> BlockHeader {
        for nonce in UInt32(0)..<10_000 {
            var bytes = [UInt8](repeating: 0, count: 80)
            bytes[0] = 2
            if previous.count == 32 { bytes[4..<36] = previous[...] }
            if merkleRoot.count == 32 { bytes[36..<68] = merkleRoot[...] }
            bytes[72...75] = [0xff, 0xff, 0x7f, 0x20]
            bytes[76...79] = [
                UInt8(nonce & 0xff), UInt8(nonce >> 8 & 0xff), UInt8(nonce >> 16 & 0xff), UInt8(nonce >> 24),
            ]
            let header = try BlockHeader(serialized: bytes)
            if (try? header.verifyProofOfWork(network: .regtest)) != nil { return header }
        }
        throw ChainError.verificationFailed("no nonce")
    }
}
