/// Errors from joining Specter `pMofN` parts.
public enum SpecterMultipartError: Error, Equatable, Sendable {
    /// The text does not start with `p<M>of<N> `.
    case notSpecterPart
    /// M is 0 or above N, or N above `SpecterMultipart.maxParts`.
    case invalidHeader(String)
    /// A part declaring a different N than the parts already received.
    case mixedPayloads(expectedCount: Int, actualCount: Int)
    /// Two different chunks for one part number.
    case conflictingPart(index: Int)
}
