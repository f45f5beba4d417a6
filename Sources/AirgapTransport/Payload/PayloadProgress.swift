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

extension PayloadProgress {
    /// A short line for a live scan (`--camera`): "5 of 12 parts" for numbered parts (BBQr, Specter), "61% (UR
    /// fountain, 7 parts of 12 read)" for UR, whose fountain parts mix fragments and complete the payload from any
    /// of them.
    public var summary: String {
        let total = totalParts.map(String.init) ?? "?"
        guard missingIsEstimate else { return "\(receivedParts) of \(total) parts" }
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        return "\(percent)% (UR fountain, \(receivedParts) parts of \(total) read)"
    }
}
