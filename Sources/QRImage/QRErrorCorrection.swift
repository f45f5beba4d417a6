internal import CQREncode

/// The error-correction level of a QR code: how much of the symbol may be damaged and still decode.
///
/// - SeeAlso: ISO/IEC 18004:2015 section 7.5.1
public enum QRErrorCorrection: Sendable, Hashable, CaseIterable {
    /// About 7% of codewords may be restored (level L); the most capacity. Airlock's default.
    case low
    /// About 15% of codewords may be restored (level M).
    case medium
    /// About 25% of codewords may be restored (level Q).
    case quartile
    /// About 30% of codewords may be restored (level H); the least capacity.
    case high

    var qrecLevel: QRecLevel {
        switch self {
        case .low: QR_ECLEVEL_L
        case .medium: QR_ECLEVEL_M
        case .quartile: QR_ECLEVEL_Q
        case .high: QR_ECLEVEL_H
        }
    }
}
