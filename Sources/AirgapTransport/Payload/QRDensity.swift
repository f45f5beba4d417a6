/// How dense the QR codes of a multi-part payload may be, for the reader at hand (`--qr-density`).
///
/// Each density caps the QR version (at error-correction level L) and sizes UR fragments and BBQr parts to fill
/// codes of that version, so a payload crosses in as few frames as the reader allows:
/// - `low`: version 10 (57 × 57 modules), for old phone cameras and small screens;
/// - `medium`: version 17 (85 × 85), about the size of Sparrow's default 400-byte UR fragments;
/// - `high`: version 25 (117 × 117), for a good camera close to a large screen.
public enum QRDensity: String, CaseIterable, Sendable {
    /// Version 10 at most.
    case low
    /// Version 17 at most (the default).
    case medium
    /// Version 25 at most.
    case high

    /// The largest QR version of this density.
    public var maxVersion: Int {
        switch self {
        case .low: 10
        case .medium: 17
        case .high: 25
        }
    }
}

extension FrameEncoder {
    /// The most CBOR bytes a UR fountain part adds around its fragment: array header (1), sequence number (≤ 5),
    /// sequence length (≤ 5), message length (≤ 5), checksum (5), byte-string header (≤ 3); bytewords then append a
    /// 4-byte CRC.
    static let urPartOverhead = 1 + 5 + 5 + 5 + 5 + 3 + 4

    /// An encoder whose UR and BBQr parts fill QR codes of at most `density.maxVersion`.
    ///
    /// The UR fragment length follows from the version's alphanumeric capacity (`urFragmentLength(type:version:)`
    /// for the PSBT type); BBQr parts may use any version from 5 to the cap.
    public init(density: QRDensity, urExtraParts: Int? = nil, urPSBTType: String = "crypto-psbt") {
        self.init(qrVersion: density.maxVersion, urExtraParts: urExtraParts, urPSBTType: urPSBTType)
    }

    /// An encoder whose UR and BBQr parts fill QR codes of at most `qrVersion` (1...40, level L): the UR fragment
    /// length from `urFragmentLength(type:version:)`, BBQr parts (zlib, `Z`) in versions up to `qrVersion`.
    public init(qrVersion: Int, urExtraParts: Int? = nil, urPSBTType: String = "crypto-psbt") {
        let version = min(max(qrVersion, 1), 40)
        self.init(
            urMaxFragmentLength: Self.urFragmentLength(type: urPSBTType, version: version),
            urExtraParts: urExtraParts, urPSBTType: urPSBTType,
            bbqr: BBQrSplitter(versions: min(5, version)...version))
    }

    /// The largest UR fragment length (bytes of CBOR) whose part texts fit a QR code of `version` at level L in
    /// alphanumeric mode, counting the longest header a part can have (`UR:TYPE/99999-99999/`).
    ///
    /// - Returns: at least 10 (the fountain encoder's minimum).
    public static func urFragmentLength(type: String, version: Int) -> Int {
        let capacity = QRCapacity.alphanumericCharacters(version: version) ?? 0
        let header = "UR:\(type)/99999-99999/".utf8.count
        return max(10, (capacity - header) / 2 - urPartOverhead)
    }
}
