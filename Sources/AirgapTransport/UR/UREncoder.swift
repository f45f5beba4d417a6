/// Produces the parts of a UR: the single-part string when it fits one fragment, else an endless multi-part
/// sequence `ur:<type>/<seqNum>-<seqLen>/<bytewords of the fountain part>`.
///
/// - SeeAlso: https://github.com/BlockchainCommons/bc-ur/blob/master/src/ur-encoder.cpp
public struct UREncoder: Sendable {
    /// The UR being sent.
    public let ur: UR
    private var fountain: FountainEncoder

    /// Prepares `ur` for fragments of at most `maxFragmentLength` bytes of CBOR.
    ///
    /// - Throws: `URError.invalidEncoderParameters` when `maxFragmentLength` < 1 or the CBOR is empty.
    public init(ur: UR, maxFragmentLength: Int, firstSeqNum: UInt32 = 0, minFragmentLength: Int = 10)
        throws(URError)
    {
        guard maxFragmentLength >= 1, minFragmentLength >= 1 else {
            throw .invalidEncoderParameters("fragment lengths must be at least 1")
        }
        guard !ur.cbor.isEmpty, ur.cbor.count <= FountainDecoder.maxMessageLength else {
            throw .invalidEncoderParameters("CBOR of \(ur.cbor.count) bytes")
        }
        self.ur = ur
        fountain = FountainEncoder(
            message: ur.cbor, maxFragmentLength: maxFragmentLength, firstSeqNum: firstSeqNum,
            minFragmentLength: min(minFragmentLength, maxFragmentLength))
    }

    /// Whether the UR fits one part (then every `nextPart()` is the same single-part string).
    public var isSinglePart: Bool { fountain.seqLen == 1 }
    /// Number of fragments: the minimum number of parts a receiver needs.
    public var seqLen: Int { fountain.seqLen }

    /// Returns the next part string (lower case).
    public mutating func nextPart() -> String {
        if isSinglePart { return ur.string }
        let part = fountain.nextPart()
        return "ur:\(ur.type)/\(part.seqNum)-\(part.seqLen)/" + Bytewords.encode(part.cbor(), style: .minimal)
    }
}
