import Bitcoin
import BitcoinCrypto
import Codecs
import Foundation

/// One line of the signing journal: sequence number, time, the SHA-256 of the unsigned PSBT, the summary, the previous
/// entry's hash and this entry's hash.
///
/// A keyed entry (format v2, `"v": 2`) carries an HMAC under the `AuditKey` over a canonical byte encoding of every
/// other field, the `--allow-*` overrides and the signed inputs included; a legacy entry (v1, written by older
/// builds) carries a plain SHA-256 of the v1 encoding (docs/formats.md). Either way the hash does not depend on how
/// the JSON line is spelled; the first entry's `previousHash` is 32 zero bytes.
public struct AuditEntry: Sendable, Equatable {
    /// 1 for the first entry, then one more per line.
    public let sequence: Int
    /// When it was signed, ISO 8601 in UTC (`2025-01-31T12:00:00Z`).
    public let time: String
    /// SHA-256 of the unsigned PSBT as it was read.
    public let psbtDigest: [UInt8]
    /// What was signed.
    public let summary: AuditSummary
    /// The hash of the entry before (zeros for the first).
    public let previousHash: [UInt8]
    /// This entry's hash (its HMAC when keyed).
    public let hash: [UInt8]
    /// Whether the hash is an HMAC under the journal key (v2), not a plain SHA-256 (v1).
    public let keyed: Bool
    /// For an Ethereum signature (`"chain": "eth"`, always keyed): what was signed.
    ///
    /// Then `psbtDigest` is the SHA-256
    /// of the request's sign-data, `summary.txid` the transaction hash (of the signed transaction) or, for a
    /// message, the hash signed, and the summary has no destinations, change, fee or signed inputs.
    public let ethereum: EthereumAuditRecord?

    /// The hash of the first entry's predecessor.
    public static let genesisHash = [UInt8](repeating: 0, count: 32)

    /// A new entry chained to `previousHash`, its hash computed: an HMAC under `key`, or (nil) the legacy SHA-256.
    init(
        sequence: Int, time: String, psbtDigest: [UInt8], summary: AuditSummary, previousHash: [UInt8], key: AuditKey?,
        ethereum: EthereumAuditRecord? = nil
    ) {
        self.sequence = sequence
        self.time = time
        self.psbtDigest = psbtDigest
        self.summary = summary
        self.previousHash = previousHash
        self.keyed = key != nil
        self.ethereum = ethereum
        let encoding = Self.encoding(
            sequence: sequence, time: time, psbtDigest: psbtDigest, summary: summary, previousHash: previousHash,
            keyed: key != nil, ethereum: ethereum)
        self.hash = key.map { $0.tag(encoding) } ?? SHA256.hash(encoding)
    }

    private init(
        sequence: Int, time: String, psbtDigest: [UInt8], summary: AuditSummary, previousHash: [UInt8], hash: [UInt8],
        keyed: Bool, ethereum: EthereumAuditRecord?
    ) {
        self.sequence = sequence
        self.time = time
        self.psbtDigest = psbtDigest
        self.summary = summary
        self.previousHash = previousHash
        self.hash = hash
        self.keyed = keyed
        self.ethereum = ethereum
    }

    /// Whether the stored hash is the hash of the fields: the HMAC under `key` for a keyed entry, the SHA-256 for a
    /// legacy one.
    func hashIsValid(key: AuditKey?) -> Bool {
        let encoding = Self.encoding(
            sequence: sequence, time: time, psbtDigest: psbtDigest, summary: summary, previousHash: previousHash,
            keyed: keyed, ethereum: ethereum)
        if keyed {
            guard let key else { return false }
            return key.tag(encoding) == hash
        }
        return SHA256.hash(encoding) == hash
    }

    /// The canonical bytes the hash covers (docs/formats.md).
    static func encoding(
        sequence: Int, time: String, psbtDigest: [UInt8], summary: AuditSummary, previousHash: [UInt8], keyed: Bool,
        ethereum: EthereumAuditRecord? = nil
    ) -> [UInt8] {
        var out: [UInt8] = []
        func u64(_ value: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(value >> UInt64(shift) & 0xFF)) }
        }
        func bytes(_ value: [UInt8]) {
            u64(UInt64(value.count))
            out += value
        }
        func text(_ value: String) { bytes(Array(value.utf8)) }
        func amount(_ value: Amount?) {
            if let value {
                out.append(1)
                u64(value.sats)
            } else {
                out.append(0)
            }
        }
        func optionalText(_ value: String?) {
            if let value {
                out.append(1)
                text(value)
            } else {
                out.append(0)
            }
        }
        if let ethereum {
            // An Ethereum entry (always keyed): its own label, so no Bitcoin entry encodes to the same bytes.
            text("airlock-audit-v2-eth")
            u64(UInt64(sequence))
            text(time)
            bytes(psbtDigest)
            text(summary.txid)
            text(ethereum.kind.rawValue)
            if let chainID = ethereum.chainID {
                out.append(1)
                u64(chainID)
            } else {
                out.append(0)
            }
            text(ethereum.from)
            optionalText(ethereum.to)
            optionalText(ethereum.valueWei)
            optionalText(ethereum.feeWei)
            optionalText(ethereum.call)
            optionalText(summary.note)
            u64(UInt64(summary.allowFlags.count))
            for flag in summary.allowFlags { text(flag) }
            bytes(previousHash)
            return out
        }
        text(keyed ? "airlock-audit-v2" : "airlock-audit-v1")
        u64(UInt64(sequence))
        text(time)
        bytes(psbtDigest)
        text(summary.txid)
        u64(UInt64(summary.destinations.count))
        for destination in summary.destinations {
            text(destination.address)
            u64(destination.amount.sats)
        }
        amount(summary.change)
        amount(summary.fee)
        if let note = summary.note {
            out.append(1)
            text(note)
        } else {
            out.append(0)
        }
        if keyed {
            u64(UInt64(summary.allowFlags.count))
            for flag in summary.allowFlags { text(flag) }
            u64(UInt64(summary.signedInputs.count))
            for index in summary.signedInputs { u64(UInt64(index)) }
        }
        bytes(previousHash)
        return out
    }

    /// The JSON object of the line, its members in the order of their names.
    public var jsonObject: JSONValue {
        var object: [String: JSONValue]
        if let ethereum {
            object = [
                "v": 2, "chain": "eth", "kind": .string(ethereum.kind.rawValue), "seq": .number(sequence),
                "time": .string(time), "data_sha256": .string(psbtDigest.hexString), "txid": .string(summary.txid),
                "from": .string(ethereum.from), "allow": .array(summary.allowFlags.map(JSONValue.string)),
                "prev": .string(previousHash.hexString), "hash": .string(hash.hexString),
            ]
            if let chainID = ethereum.chainID { object["chain_id"] = .number(chainID) }
            if let to = ethereum.to { object["to"] = .string(to) }
            if let value = ethereum.valueWei { object["value_wei"] = .string(value) }
            if let fee = ethereum.feeWei { object["fee_wei"] = .string(fee) }
            if let call = ethereum.call { object["call"] = .string(call) }
            if let note = summary.note { object["note"] = .string(note) }
            return JSONValue.object(object).sortingMembers()
        }
        object = [
            "seq": .number(sequence),
            "time": .string(time),
            "psbt_sha256": .string(psbtDigest.hexString),
            "txid": .string(summary.txid),
            "destinations": .array(
                summary.destinations.map {
                    .object(["address": .string($0.address), "amount": .number($0.amount.sats)])
                }),
            "prev": .string(previousHash.hexString),
            "hash": .string(hash.hexString),
        ]
        if let change = summary.change { object["change"] = .number(change.sats) }
        if let fee = summary.fee { object["fee"] = .number(fee.sats) }
        if let note = summary.note { object["note"] = .string(note) }
        if keyed {
            object["v"] = 2
            object["allow"] = .array(summary.allowFlags.map(JSONValue.string))
            object["signed_inputs"] = .array(summary.signedInputs.map { .number($0) })
        }
        return JSONValue.object(object).sortingMembers()
    }

    /// The line as written: compact JSON with sorted keys, no newline (the bytes Foundation's `JSONSerialization`
    /// wrote with `sortedKeys` and `withoutEscapingSlashes`; the hash covers `encoding`, not these bytes).
    func line() -> String {
        String(decoding: jsonObject.serialized(), as: UTF8.self)
    }

    /// Parses one line (without checking its hash) with the strict parser (a member named twice is refused).
    ///
    /// - Throws: `AuditError.malformedLine`.
    init(line: String, number: Int) throws(AuditError) {
        func fail(_ reason: String) -> AuditError { .malformedLine(line: number, reason: reason) }
        let o: JSONValue
        do { o = try JSONValue(json: line) } catch { throw fail("\(error)") }
        guard case .object = o else { throw fail("not a JSON object") }
        func int(_ key: String) -> Int? { o[key]?.intValue }
        func amount(_ value: JSONValue?) -> Amount? {
            guard case .number(let literal)? = value, let v = UInt64(literal) else { return nil }
            return try? Amount(sats: v)
        }
        func hex(_ key: String) -> [UInt8]? {
            guard let text = o[key]?.stringValue, let bytes = try? [UInt8](hex: text), bytes.count == 32 else {
                return nil
            }
            return bytes
        }
        guard let sequence = int("seq") else { throw fail("seq is missing") }
        guard let time = o["time"]?.stringValue else { throw fail("time is missing") }
        if o["chain"] != nil {
            try self.init(ethereumLine: o, sequence: sequence, time: time, number: number)
            return
        }
        guard let digest = hex("psbt_sha256") else { throw fail("psbt_sha256 is not 32 bytes of hex") }
        guard let txid = o["txid"]?.stringValue else { throw fail("txid is missing") }
        guard let list = o["destinations"]?.arrayValue else { throw fail("destinations is missing") }
        var destinations: [AuditSummary.Destination] = []
        for item in list {
            guard let address = item["address"]?.stringValue, let value = amount(item["amount"]) else {
                throw fail("a destination lacks an address or amount")
            }
            destinations.append(.init(address: address, amount: value))
        }
        if o["change"] != nil, amount(o["change"]) == nil { throw fail("change is not an amount") }
        if o["fee"] != nil, amount(o["fee"]) == nil { throw fail("fee is not an amount") }
        guard let previous = hex("prev") else { throw fail("prev is not 32 bytes of hex") }
        guard let hash = hex("hash") else { throw fail("hash is not 32 bytes of hex") }
        let keyed: Bool
        switch o["v"] {
        case nil: keyed = false
        case .number("2")?: keyed = true
        default: throw fail("v is not 2")
        }
        var allowFlags: [String] = []
        var signedInputs: [Int] = []
        if keyed {
            guard let flags = o["allow"]?.arrayValue, flags.allSatisfy({ $0.stringValue != nil }) else {
                throw fail("allow is not a list of strings")
            }
            guard let inputs = o["signed_inputs"]?.arrayValue,
                inputs.allSatisfy({ ($0.intValue ?? -1) >= 0 })
            else { throw fail("signed_inputs is not a list of indexes") }
            allowFlags = flags.compactMap(\.stringValue)
            signedInputs = inputs.compactMap(\.intValue)
        }
        if o["note"] != nil, o["note"]?.stringValue == nil { throw fail("note is not text") }
        var known: Set<String> = [
            "seq", "time", "psbt_sha256", "txid", "destinations", "change", "fee", "note", "prev",
            "hash",
        ]
        if keyed { known.formUnion(["v", "allow", "signed_inputs"]) }
        if let extra = o.keys.first(where: { !known.contains($0) }) { throw fail("unknown field '\(extra)'") }
        self.init(
            sequence: sequence, time: time, psbtDigest: digest,
            summary: AuditSummary(
                txid: txid, destinations: destinations, change: amount(o["change"]), fee: amount(o["fee"]),
                note: o["note"]?.stringValue, allowFlags: allowFlags, signedInputs: signedInputs),
            previousHash: previous, hash: hash, keyed: keyed, ethereum: nil)
    }

    /// Parses the fields of an Ethereum entry (`"chain": "eth"`), which is always keyed.
    private init(ethereumLine o: JSONValue, sequence: Int, time: String, number: Int) throws(AuditError) {
        func fail(_ reason: String) -> AuditError { .malformedLine(line: number, reason: reason) }
        func hex(_ key: String) -> [UInt8]? {
            guard let text = o[key]?.stringValue, let bytes = try? [UInt8](hex: text), bytes.count == 32 else {
                return nil
            }
            return bytes
        }
        func optionalText(_ key: String) throws(AuditError) -> String? {
            guard let value = o[key] else { return nil }
            guard let text = value.stringValue else { throw fail("\(key) is not text") }
            return text
        }
        guard o["chain"]?.stringValue == "eth" else { throw fail("chain is not \"eth\"") }
        guard o["v"] == .number("2") else { throw fail("an Ethereum entry is not v 2") }
        guard let kindText = o["kind"]?.stringValue, let kind = EthereumAuditRecord.Kind(rawValue: kindText) else {
            throw fail("kind is not transaction, typed-data or personal-message")
        }
        guard let digest = hex("data_sha256") else { throw fail("data_sha256 is not 32 bytes of hex") }
        guard let txid = o["txid"]?.stringValue else { throw fail("txid is missing") }
        guard let from = o["from"]?.stringValue else { throw fail("from is missing") }
        var chainID: UInt64?
        if let value = o["chain_id"] {
            guard case .number(let literal) = value, let n = UInt64(literal) else {
                throw fail("chain_id is not an integer")
            }
            chainID = n
        }
        guard let list = o["allow"]?.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
            throw fail("allow is not a list of strings")
        }
        let flags = list.compactMap(\.stringValue)
        guard let previous = hex("prev") else { throw fail("prev is not 32 bytes of hex") }
        guard let hash = hex("hash") else { throw fail("hash is not 32 bytes of hex") }
        let known: Set<String> = [
            "v", "chain", "kind", "seq", "time", "data_sha256", "txid", "from", "chain_id", "to", "value_wei",
            "fee_wei", "call", "note", "allow", "prev", "hash",
        ]
        if let extra = o.keys.first(where: { !known.contains($0) }) { throw fail("unknown field '\(extra)'") }
        let record = EthereumAuditRecord(
            kind: kind, chainID: chainID, from: from, to: try optionalText("to"),
            valueWei: try optionalText("value_wei"),
            feeWei: try optionalText("fee_wei"), call: try optionalText("call"))
        self.init(
            sequence: sequence, time: time, psbtDigest: digest,
            summary: AuditSummary(txid: txid, destinations: [], note: try optionalText("note"), allowFlags: flags),
            previousHash: previous, hash: hash, keyed: true, ethereum: record)
    }
}
