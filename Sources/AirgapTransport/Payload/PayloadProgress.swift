/// How far a multi-part payload has got.
public struct PayloadProgress: Equatable, Sendable {
    /// The framing of the parts seen.
    public let format: FrameFormat
    /// Distinct parts accepted.
    public let receivedParts: Int
    /// Parts needed (the fragment count for UR, whose fountain parts can replace any missing one), when known.
    public let totalParts: Int?
    /// Fraction complete, 0...1 (for UR the reference decoder's estimate).
    public let fraction: Double
    /// Missing part numbers, 1-based (BBQr index + 1, Specter M, UR fragment number).
    public let missingParts: [Int]
    /// True for UR, where the missing fragments are recovered from any later fountain part, not only their own.
    public let missingIsEstimate: Bool
}
