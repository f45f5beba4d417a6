import AirgapTransport
import Bitcoin
import ChainCore
import Codecs
import Ethereum
import Foundation
import QRImage
import Watcher
import WatcherEthereum
import WatcherFlows

/// Send, the request's animated QR, scanning the answer, broadcast, wallets.
extension WebApp {
    // MARK: send

    struct RequestJSON: Encodable {
        let request: String
        let frames: Int
        let kind: String
        let summary: [String]
    }

    func send(_ body: JSONValue) async throws -> WebResponse {
        let wallet = try wallet(body)
        let max = body["max"]?.bool ?? false
        let payments = try (body["recipients"]?.array ?? []).map { item in
            let amount = try Self.optionalString(item, "amount").map { text in
                do { return try Amount(string: text) } catch {
                    throw WebFailure(400, "'\(text)' is not an amount: write 0.001btc or 1000sat")
                }
            }
            return SendRequest.Payment(address: try Self.string(item, "address"), amount: max ? nil : amount)
        }
        guard !payments.isEmpty else { throw WebFailure(400, "give at least one recipient") }
        var rate = SendRequest.Rate.target(blocks: body["target_blocks"]?.int ?? 6)
        if let text = Self.optionalString(body, "fee_rate") {
            do { rate = .fixed(try FeeRate(string: text)) } catch {
                throw WebFailure(400, "'\(text)' is not a fee rate in sat/vB")
            }
        }
        let coins = try (body["utxos"]?.array ?? []).compactMap(\.string).map { text in
            do { return try OutPoint(string: text) } catch {
                throw WebFailure(400, "'\(text)' is not a coin TXID:VOUT")
            }
        }
        let request = SendRequest(
            payments: payments, rate: rate, coins: coins.isEmpty ? nil : coins, rbf: body["rbf"]?.bool ?? true,
            recovery: false, signers: nil, dryRun: false)
        let connect = configuration.connect
        var generator = SystemRandomNumberGenerator()
        let report = try await SendFlow(store: store, wallet: wallet).run(
            request,
            feeEstimate: { blocks in
                let (_, source) = try await connect(wallet)
                let rate = try await source.feeRate(targetBlocks: blocks)
                await source.close()
                return rate
            }, using: &generator)
        guard let psbt = report.psbt else { throw WebFailure(500, "no PSBT was made") }
        let bytes = psbt.serialized()
        let frames = try FrameEncoder(density: .medium, urExtraParts: nil).frames(for: .psbt(bytes), format: .bbqr)
        let id = await requests.add(
            RequestFrames.Item(
                frames: frames, file: bytes, fileName: "\(report.plan.transaction.txid.hexString).psbt",
                caption: "Airlock · PSBT request"))
        return try Self.json(RequestJSON(request: id, frames: frames.count, kind: "psbt", summary: report.lines))
    }

    func ethSend(_ body: JSONValue) async throws -> WebResponse {
        let options = EthereumFlows.SendOptions(
            wallet: Self.optionalString(body, "wallet"), to: try Self.string(body, "to"),
            amount: Self.optionalString(body, "amount"), max: body["max"]?.bool ?? false,
            token: Self.optionalString(body, "token"), maxFee: Self.optionalString(body, "max_fee"),
            priorityFee: Self.optionalString(body, "priority_fee"), gasLimit: nil, index: body["index"]?.int ?? 0)
        let report = try await EthereumFlows.send(options, store: store, node: configuration.ethereumNode)
        let frames = try FrameEncoder(density: .medium, urExtraParts: nil).frames(
            for: .ethSignRequest(report.request), format: .ur)
        let id = await requests.add(
            RequestFrames.Item(
                frames: frames, file: Array((report.ur + "\n").utf8), fileName: "eth-sign-request.txt",
                caption: "Airlock · Ethereum request"))
        return try Self.json(RequestJSON(request: id, frames: frames.count, kind: "eth", summary: [report.summary]))
    }

    func frame(_ query: [String: String]) async throws -> WebResponse {
        let item = try await requests.item(query["request"] ?? "")
        let index = Int(query["n"] ?? "0") ?? 0
        guard item.frames.indices.contains(index) else { throw WebFailure(404, "no such frame") }
        let module = min(max(Int(query["size"] ?? "6") ?? 6, 2), 16)
        let png = try QRCode(text: item.frames[index]).pngData(moduleSize: module)
        return WebResponse(
            contentType: "image/png", body: png,
            headers: [("Content-Disposition", "inline; filename=\"request-\(index + 1)of\(item.frames.count).png\"")])
    }

    func gif(_ query: [String: String]) async throws -> WebResponse {
        let item = try await requests.item(query["request"] ?? "")
        let fps = min(max(Int(query["fps"] ?? "4") ?? 4, 1), 50)
        let codes = try item.frames.map { try QRCode(text: $0) }
        let gif = try QRCode.animatedGIF(
            codes, framesPerSecond: QRCode.gifFrameRates.contains(fps) ? fps : 4,
            caption: [item.caption + " · \(codes.count) codes, looping"])
        return WebResponse(
            contentType: "image/gif", body: gif,
            headers: [("Content-Disposition", "attachment; filename=\"request.gif\"")])
    }

    func file(_ query: [String: String]) async throws -> WebResponse {
        let item = try await requests.item(query["request"] ?? "")
        return WebResponse(
            contentType: "application/octet-stream", body: item.file,
            headers: [("Content-Disposition", "attachment; filename=\"\(item.fileName)\"")])
    }

    // MARK: scan

    /// A camera frame: 8-bit gray pixels, `w` × `h`, decoded by zbar (the same `QRReader` as every image).
    func scanFrame(_ request: WebRequest) async throws -> WebResponse {
        let id = request.query["scan"] ?? ""
        guard let width = Int(request.query["w"] ?? ""), let height = Int(request.query["h"] ?? ""), width > 0,
            height > 0, width * height == request.body.count, width <= 4096, height <= 4096
        else { throw WebFailure(400, "a frame is w × h gray bytes (at most 4096 × 4096)") }
        let codes = try QRReader().read(gray: request.body, width: width, height: height)
        return try Self.json(try await scans.receive(id, codes: codes.map(\.bytes)))
    }

    /// Text of a QR code read elsewhere (or pasted).
    func scanText(_ request: WebRequest) async throws -> WebResponse {
        let id = request.query["scan"] ?? ""
        let text = String(decoding: request.body, as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { Array($0.utf8) }
        return try Self.json(try await scans.receive(id, codes: lines))
    }

    /// The PSBTs of complete scans, with the copy this watcher kept, combined.
    func combined(_ body: JSONValue) async throws -> CombineReport {
        let ids = body["scans"]?.array?.compactMap(\.string) ?? []
        var psbts: [PSBT] = []
        for id in ids {
            guard case .psbt(let bytes) = try await scans.payload(id) else {
                throw WebFailure(400, "a scanned answer is not a signed PSBT")
            }
            do { psbts.append(try PSBT(serialized: bytes)) } catch {
                throw WebFailure(400, "a scanned answer is not a valid PSBT: \(error)")
            }
        }
        guard !psbts.isEmpty else { throw WebFailure(400, "scan the signer's answer first") }
        return try CombineReport(psbts: psbts, archive: PSBTArchive(store: store))
    }

    struct ReviewJSON: Encodable {
        let txid: String
        let answers: Int
        let signatures: [Int]
        let complete: Bool
        let summary: TransactionSummaryJSON?
        let lines: [String]
        let note: String?
    }

    /// What the combined answers pay and whether they are complete.
    func review(_ body: JSONValue) async throws -> WebResponse {
        let wallet = try wallet(body)
        let report = try await combined(body)
        guard let psbt = report.psbt else { throw WebFailure(400, "nothing to review") }
        let own = Set(try store.addresses(walletID: wallet.requireID()).map(\.script))
        do {
            let finalized = try PSBTFinalizer(store: store, wallet: wallet).finalize(psbt)
            let transaction = try finalized.extractTransaction()
            let summary = TransactionSummary(
                transaction, fee: PSBTFee.fee(finalized, transaction: transaction), vsize: transaction.vsize,
                network: wallet.network, own: own)
            return try Self.json(
                ReviewJSON(
                    txid: report.txid.hexString, answers: report.count, signatures: report.signatures, complete: true,
                    summary: summary.json, lines: report.lines + summary.lines, note: nil))
        } catch {
            return try Self.json(
                ReviewJSON(
                    txid: report.txid.hexString, answers: report.count, signatures: report.signatures, complete: false,
                    summary: nil, lines: report.lines, note: "not complete yet: \(error)"))
        }
    }

    func broadcast(_ body: JSONValue) async throws -> WebResponse {
        let wallet = try wallet(body)
        guard let psbt = try await combined(body).psbt else { throw WebFailure(400, "nothing to broadcast") }
        let connect = configuration.connect
        let report = try await BroadcastFlow(store: store, wallet: wallet).run(
            .psbt(psbt), connect: { try await connect(wallet).1 }, announce: { _ in })
        return try Self.json(report.json)
    }

    func ethBroadcast(_ body: JSONValue) async throws -> WebResponse {
        guard case .ethSignature(let signature) = try await scans.payload(try Self.string(body, "scan")) else {
            throw WebFailure(400, "the scanned answer is not an Ethereum signature (ur:eth-signature)")
        }
        let report = try await EthereumFlows.broadcast(
            signature, wallet: Self.optionalString(body, "wallet"), wait: false, timeout: 60, store: store,
            node: configuration.ethereumNode)
        return try Self.json(report.json)
    }

    // MARK: wallets

    func importWallet(_ body: JSONValue) async throws -> WebResponse {
        let payload = try await scans.payload(try Self.string(body, "scan"))
        let network = try Self.optionalString(body, "network").map { text in
            guard let network = Network(rawValue: text) else { throw WebFailure(400, "unknown network \(text)") }
            return network
        }
        let options = WalletImport.Options(
            name: Self.optionalString(body, "name"), network: network,
            birthday: Self.optionalString(body, "birthday"))
        let store = self.store
        return try Self.json(try WalletImport.run(payload: payload, options: options, openStore: { store }))
    }

    func deleteWallet(_ body: JSONValue) throws -> WebResponse {
        let name = try Self.string(body, "name")
        let chain = Self.optionalString(body, "chain").flatMap(NodeSettings.Chain.init(rawValue:))
        // The page asked the user before it sent this request.
        return try Self.json(WalletDeletion.run(store: store, name: name, chain: chain, confirm: { _ in true }))
    }
}

/// The syncs started from the page and how far each has got.
actor SyncJobs {
    struct State {
        var checked = 0
        var expected = 0
        var done = false
        var failed = false
        var message = ""

        var json: String {
            let text = JSONValue.object([
                "checked": .number(checked), "expected": .number(expected), "done": .bool(done),
                "failed": .bool(failed),
                "message": .string(message),
            ])
            return String(decoding: text.serialized(), as: UTF8.self)
        }
    }

    /// The last 64 syncs: a page asks about the one it started, seconds later.
    private var jobs = RecentItems<State>(limit: 64, prefix: "sync")

    func start() -> String { jobs.add(State()) }

    func update(_ id: String, checked: Int, expected: Int) {
        guard var state = jobs[id], !state.done else { return }
        state.checked = max(state.checked, checked)
        state.expected = expected
        jobs[id] = state
    }

    func finish(_ id: String, message: String, failed: Bool) {
        guard var state = jobs[id] else { return }
        state.done = true
        state.failed = failed
        state.message = message
        jobs[id] = state
    }

    func state(_ id: String) -> State? { jobs[id] }
}

/// The requests made by send, kept in memory for their frames and downloads.
actor RequestFrames {
    struct Item: Sendable {
        let frames: [String]
        let file: [UInt8]
        let fileName: String
        let caption: String
    }

    /// The last 16 requests: the page shows the newest; older ones may still be downloaded for a while.
    private var items = RecentItems<Item>(limit: 16, prefix: "r")

    func add(_ item: Item) -> String { items.add(item) }

    func item(_ id: String) throws -> Item {
        guard let item = items[id] else {
            throw WebFailure(404, "no such request (the server was restarted, or it is too old): make it again")
        }
        return item
    }
}

/// The scans in progress: each a `PayloadDecoder` fed every code the camera (or an uploaded image or video) shows.
actor ScanSessions {
    struct Progress: Encodable {
        let codes: Int
        let received: Int
        let total: Int?
        let fraction: Double
        let complete: Bool
        let kind: String?
        let error: String?
    }

    /// The last 16 scans: the page feeds the one it started.
    private var decoders = RecentItems<PayloadDecoder>(limit: 16, prefix: "s")

    func start() -> String { decoders.add(PayloadDecoder()) }

    func receive(_ id: String, codes: [[UInt8]]) throws -> Progress {
        guard var decoder = decoders[id] else { throw WebFailure(404, "no such scan: start a new one") }
        var problem: String?
        for code in codes where !decoder.isComplete {
            do { try decoder.receive(bytes: code) } catch { problem = "\(error)" }
        }
        decoders[id] = decoder
        let result = try? decoder.result()
        let progress = decoder.progress
        return Progress(
            codes: codes.count, received: progress?.receivedParts ?? (result == nil ? 0 : 1),
            total: progress?.totalParts ?? (result == nil ? nil : 1),
            fraction: result == nil ? progress?.fraction ?? 0 : 1, complete: result != nil,
            kind: result?.payload.kind.rawValue, error: problem)
    }

    func payload(_ id: String) throws -> Payload {
        guard let decoder = decoders[id] else { throw WebFailure(404, "no such scan: start a new one") }
        guard let result = try? decoder.result() else { throw WebFailure(400, "the scan is not complete yet") }
        return result.payload
    }
}
