import Bitcoin
import TestSupport
import Testing

@Suite("Transactions: serialization, ids, weight and bad input")
struct TransactionTests {
    /// BIP143's native P2WPKH example, signed (Tests/Vectors/sighash/bip143_examples.json).
    func signedExample() throws -> [UInt8] {
        let examples = try BIP143Vectors.exampleList()
        return TestHex.bytes(try #require(examples.first?.signedTxs.first))
    }

    @Test("BIP341's fully signed transaction round-trips, with weight and vsize from its sizes")
    func bip341Signed() throws {
        let auxiliary = try BIP341Vectors.keyPath()["auxiliary"] as? [String: String] ?? [:]
        let hex = try #require(auxiliary["fullySignedTx"])
        let tx = try Transaction(serialized: TestHex.bytes(hex))
        #expect(tx.serialized().hexString == hex)
        #expect(tx.inputs.count == 9)
        #expect(tx.totalSize == hex.count / 2)
        #expect(tx.weight == 3 * tx.baseSize + tx.totalSize)
        #expect(tx.vsize == (tx.weight + 3) / 4)
        let (unsigned, _) = try BIP341Vectors.unsignedTransaction()
        #expect(unsigned.inputs.map(\.previousOutput) == tx.inputs.map(\.previousOutput))
        #expect(unsigned.outputs == tx.outputs)
    }

    @Test("Txid displays reversed and parses back")
    func txid() throws {
        let tx = try Transaction(serialized: signedExample())
        let parsed = try Txid(hex: tx.txid.description)
        #expect(parsed == tx.txid)
        #expect(Array(tx.txid.bytes.reversed()).hexString == tx.txid.description)
        let outPoint = try OutPoint(string: "\(tx.txid):7")
        #expect(outPoint.vout == 7)
        #expect(throws: EncodingError.self) { try OutPoint(string: "abcd:1") }
    }

    @Test("Trailing bytes are refused by name")
    func trailing() throws {
        #expect(throws: EncodingError.trailingBytes(count: 2)) {
            try Transaction(serialized: signedExample() + [0, 0])
        }
    }

    @Test("Every truncation is a typed error, never a crash")
    func truncated() throws {
        let bytes = try signedExample()
        for length in 0..<bytes.count {
            #expect(throws: EncodingError.self) { try Transaction(serialized: bytes.prefix(length)) }
        }
    }

    @Test("A huge input count fails before allocating")
    func absurdCount() {
        // version 1, then 0xff + 2^64-1 inputs.
        let bytes: [UInt8] = [1, 0, 0, 0, 0xFF] + [UInt8](repeating: 0xFF, count: 8) + [0, 0, 0, 0]
        #expect(throws: EncodingError.lengthOutOfRange(offset: 4, length: UInt64.max)) {
            try Transaction(serialized: bytes)
        }
    }

    @Test("Segwit flag other than 1 and a witness-less segwit serialization are refused")
    func segwitFlags() throws {
        var bytes = try signedExample()
        bytes[5] = 0x02
        #expect(throws: EncodingError.invalidSegwitFlag(2)) { try Transaction(serialized: bytes) }
        var tx = try Transaction(serialized: signedExample())
        for index in tx.inputs.indices { tx.inputs[index].witness = Witness() }
        let legacy = tx.serialized()
        // Insert marker and flag and an empty witness per input.
        let forged =
            Array(legacy[0..<4]) + [0, 1] + Array(legacy[4..<(legacy.count - 4)])
            + [UInt8](repeating: 0, count: tx.inputs.count) + Array(legacy.suffix(4))
        #expect(throws: EncodingError.superfluousWitness) { try Transaction(serialized: forged) }
    }

    @Test("parsingTxid: the txid hashed from the bytes sent is the transaction's txid, and they are its serialization")
    func txidFromRawBytes() throws {
        // Legacy and segwit transactions: BIP143's examples (unsigned and signed) and BIP341's signed one.
        var hexes = try BIP143Vectors.exampleList().flatMap { [$0.unsignedTx].compactMap { $0 } + $0.signedTxs }
        let auxiliary = try BIP341Vectors.keyPath()["auxiliary"] as? [String: String] ?? [:]
        hexes.append(try #require(auxiliary["fullySignedTx"]))
        var segwit = 0
        for hex in hexes where !hex.isEmpty {
            let raw = TestHex.bytes(hex)
            let (transaction, txid) = try Transaction.parsingTxid(raw)
            #expect(transaction == (try Transaction(serialized: raw)), "\(hex.prefix(40))")
            #expect(txid == transaction.txid, "\(hex.prefix(40))")
            // What a store writes in place of serializing the transaction again.
            #expect(transaction.serialized() == raw, "\(hex.prefix(40))")
            if transaction.hasWitness { segwit += 1 }
        }
        // Control: both serializations were among them.
        #expect(segwit >= 3 && segwit < hexes.count)
        // Bad input: refused as `init(serialized:)` refuses it.
        let bytes = try signedExample()
        #expect(throws: EncodingError.trailingBytes(count: 2)) { try Transaction.parsingTxid(bytes + [0, 0]) }
        for length in [0, 5, 40, bytes.count - 1] {
            #expect(throws: EncodingError.self) { try Transaction.parsingTxid(Array(bytes.prefix(length))) }
        }
    }

    @Test("An output above 21 million BTC is refused")
    func valueOutOfRange() throws {
        let tx = try Transaction(serialized: signedExample())
        var bytes = tx.serialized(includingWitness: false)
        // The first output's value follows version, input count and the inputs.
        var offset = 4 + 1
        for input in tx.inputs { offset += 36 + 1 + input.scriptSig.bytes.count + 4 }
        offset += 1
        for i in 0..<8 { bytes[offset + i] = 0xFF }
        #expect(throws: EncodingError.valueOutOfRange(offset: offset, value: UInt64.max)) {
            try Transaction(serialized: bytes)
        }
    }
}

@Suite("Txid hashing")
struct TxidHashingTests {
    /// A server names the txids of a history before any is checked against its transaction: txids it made share
    /// every byte but the last eight must still spread over a set's buckets, or one reply stalls a sync.
    @Test("txids that differ only in their last bytes hash apart; equal txids hash alike")
    func sharedPrefixesSpread() throws {
        let prefix = [UInt8](repeating: 0xAB, count: 24)
        let crafted = try (0..<2_000).map { (n: Int) -> Txid in
            let tail = withUnsafeBytes(of: UInt64(n).littleEndian, Array.init)
            return try Txid(bytes: prefix + tail)
        }
        #expect(Set(crafted.map(\.hashValue)).count >= 1_990)
        // Control: txids that differ in their first bytes spread too, and an equal txid hashes alike.
        let spread = try (0..<2_000).map { (n: Int) -> Txid in
            try Txid(bytes: withUnsafeBytes(of: UInt64(n).littleEndian, Array.init) + prefix)
        }
        #expect(Set(spread.map(\.hashValue)).count >= 1_990)
        #expect(try Txid(bytes: crafted[7].bytes).hashValue == crafted[7].hashValue)
        // A set of the crafted txids holds them all, each found again.
        let set = Set(crafted)
        #expect(set.count == 2_000 && crafted.allSatisfy(set.contains))
    }
}

@Suite("ByteReader / ByteWriter")
struct ByteCodecTests {
    @Test(
        "Compact sizes round-trip at every width boundary",
        arguments: [
            UInt64(0), 0xFC, 0xFD, 0xFFFF, 0x1_0000, 0xFFFF_FFFF, 0x1_0000_0000, UInt64.max,
        ])
    func compactSize(_ value: UInt64) throws {
        var writer = ByteWriter()
        writer.writeCompactSize(value)
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readCompactSize() == value)
        #expect(reader.isAtEnd)
        #expect(writer.bytes.count == ByteWriter.compactSizeLength(Int(clamping: value)))
    }

    @Test(
        "Overlong compact sizes are refused",
        arguments: [
            [0xFD, 0xFC, 0x00], [0xFE, 0xFF, 0xFF, 0x00, 0x00], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0] as [UInt8],
        ])
    func overlong(_ bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        #expect(throws: EncodingError.nonCanonicalCompactSize(offset: 0)) { try reader.readCompactSize() }
    }

    @Test("Reads past the end name the offset and size")
    func bounds() throws {
        var reader = ByteReader([1, 2, 3])
        #expect(try reader.readUInt16() == 0x0201)
        #expect(throws: EncodingError.unexpectedEnd(offset: 2, needed: 4)) { try reader.readUInt32() }
        var varBytes = ByteReader([5, 1, 2])
        #expect(throws: EncodingError.lengthOutOfRange(offset: 0, length: 5)) { try varBytes.readVarBytes() }
    }

    @Test("Integers are little-endian")
    func littleEndian() throws {
        var writer = ByteWriter()
        writer.write(UInt32(0x0102_0304))
        writer.write(Int32(-2))
        writer.write(UInt64(1))
        #expect(writer.bytes == [4, 3, 2, 1, 0xFE, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 0, 0, 0, 0])
        var reader = ByteReader(writer.bytes)
        #expect(try reader.readUInt32() == 0x0102_0304)
        #expect(try reader.readInt32() == -2)
        #expect(try reader.readUInt64() == 1)
    }
}
