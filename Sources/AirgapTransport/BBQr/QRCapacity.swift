/// Alphanumeric-mode character capacity of QR versions 1-40 (ISO/IEC 18004:2015, table 7).
///
/// - SeeAlso: https://www.iso.org/standard/62021.html
public enum QRCapacity {
    /// QR error-correction level.
    public enum ErrorCorrection: Sendable {
        /// ~7 % recovery; what BBQr recommends for screens.
        case low
        /// ~15 % recovery.
        case medium
    }

    private static let alphanumericLow = [
        25, 47, 77, 114, 154, 195, 224, 279, 335, 395, 468, 535, 619, 667, 758, 854, 938, 1046, 1153, 1249,
        1352, 1460, 1588, 1704, 1853, 1990, 2132, 2223, 2369, 2520, 2677, 2840, 3009, 3183, 3351, 3537, 3729, 3927,
        4087, 4296,
    ]
    private static let alphanumericMedium = [
        20, 38, 61, 90, 122, 154, 178, 221, 262, 311, 366, 419, 483, 528, 600, 656, 734, 816, 909, 970,
        1035, 1134, 1248, 1326, 1451, 1542, 1637, 1732, 1839, 1994, 2113, 2238, 2369, 2506, 2632, 2780, 2894, 3054,
        3220, 3391,
    ]

    /// Alphanumeric characters that fit a QR code of `version` (1...40) at `level`; nil outside 1...40.
    public static func alphanumericCharacters(version: Int, level: ErrorCorrection = .low) -> Int? {
        guard (1...40).contains(version) else { return nil }
        return (level == .low ? alphanumericLow : alphanumericMedium)[version - 1]
    }

    /// The smallest version whose alphanumeric capacity at `level` holds `count` characters.
    public static func smallestVersion(alphanumericCount count: Int, level: ErrorCorrection = .low) -> Int? {
        (1...40).first { (alphanumericCharacters(version: $0, level: level) ?? 0) >= count }
    }
}
