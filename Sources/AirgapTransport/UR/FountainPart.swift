/// One fountain-coded part: which message it belongs to and its (possibly XOR-mixed) fragment data.
///
/// Its CBOR is the array `[seqNum, seqLen, messageLen, checksum, data]`.
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2024-001-multipart-ur.md
public struct FountainPart: Equatable, Sendable {
    /// 1-based sequence number; numbers above `seqLen` are mixed parts.
    public let seqNum: UInt32
    /// Number of fragments the message was split into.
    public let seqLen: Int
    /// Length of the whole message in bytes.
    public let messageLength: Int
    /// CRC-32 of the whole message; identifies it.
    public let checksum: UInt32
    /// The fragment data (XOR of the chosen fragments).
    public let data: [UInt8]

    package init(seqNum: UInt32, seqLen: Int, messageLength: Int, checksum: UInt32, data: [UInt8]) {
        self.seqNum = seqNum
        self.seqLen = seqLen
        self.messageLength = messageLength
        self.checksum = checksum
        self.data = data
    }

    /// Decodes a part from its CBOR.
    ///
    /// - Throws: `URError.cbor` on bad CBOR, `URError.invalidFountainPart` on a wrong shape or out-of-range value.
    package init(cbor bytes: [UInt8]) throws(URError) {
        let item: CBOR
        do { item = try CBOR(serialized: bytes) } catch { throw .cbor(error) }
        guard case .array(let fields) = item, fields.count == 5,
            case .unsigned(let seqNum) = fields[0], case .unsigned(let seqLen) = fields[1],
            case .unsigned(let messageLength) = fields[2], case .unsigned(let checksum) = fields[3],
            case .bytes(let data) = fields[4]
        else { throw .invalidFountainPart("not [uint, uint, uint, uint, bytes]") }
        guard seqNum >= 1, seqNum <= UInt64(UInt32.max) else { throw .invalidFountainPart("seqNum out of range") }
        guard checksum <= UInt64(UInt32.max) else { throw .invalidFountainPart("checksum out of range") }
        guard seqLen >= 1, seqLen <= UInt64(FountainDecoder.maxSequenceLength) else {
            throw .invalidFountainPart("seqLen \(seqLen) outside 1...\(FountainDecoder.maxSequenceLength)")
        }
        guard messageLength >= 1, messageLength <= UInt64(FountainDecoder.maxMessageLength) else {
            throw .invalidFountainPart("messageLen \(messageLength) outside 1...\(FountainDecoder.maxMessageLength)")
        }
        guard !data.isEmpty else { throw .invalidFountainPart("empty fragment") }
        // The fragment length must be the one that splits messageLen into exactly seqLen fragments.
        let expectedSeqLen = (Int(messageLength) + data.count - 1) / data.count
        guard expectedSeqLen == Int(seqLen) else {
            throw .invalidFountainPart(
                "\(data.count)-byte fragments cannot split \(messageLength) bytes into \(seqLen)")
        }
        self.init(
            seqNum: UInt32(seqNum), seqLen: Int(seqLen), messageLength: Int(messageLength),
            checksum: UInt32(checksum), data: data)
    }

    /// The part's CBOR encoding.
    package func cbor() -> [UInt8] {
        CBOR.array([
            .unsigned(UInt64(seqNum)), .unsigned(UInt64(seqLen)), .unsigned(UInt64(messageLength)),
            .unsigned(UInt64(checksum)), .bytes(data),
        ]).serialized()
    }
}
