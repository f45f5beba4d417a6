/// How a payload was framed in its QR codes or file.
public enum FrameFormat: String, Sendable, CaseIterable {
    /// BC-UR, single or multi-part.
    case ur
    /// BBQr.
    case bbqr
    /// Specter `pMofN`.
    case specter
    /// Base64 (PSBTs).
    case base64
    /// Hex.
    case hex
    /// Electrum base43.
    case base43
    /// Plain text (addresses, URIs, descriptors).
    case plain
    /// Raw bytes from a QR code's byte mode or a binary file.
    case binary
}
