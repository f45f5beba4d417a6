import Testing

@testable import AirgapTransport

/// UR fragments and BBQr parts sized to fill a QR version: every part fits its density's version, and a fragment a
/// little larger would not have.
@Suite("QR density and frame sizes")
struct QRDensityTests {
    static func payload(_ count: Int) -> [UInt8] {
        var state: UInt32 = 0x1234_5678
        return (0..<count).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }

    @Test("UR parts of each density fit its QR version", arguments: QRDensity.allCases, [300, 5_000, 60_000])
    func urPartsFit(density: QRDensity, size: Int) throws {
        let encoder = FrameEncoder(density: density, urExtraParts: 3)
        let parts = try encoder.frames(for: .psbt(Self.payload(size)), format: .ur)
        let capacity = try #require(QRCapacity.alphanumericCharacters(version: density.maxVersion))
        #expect(parts.allSatisfy { $0.utf8.count <= capacity })
        // Filled, not padded: the longest part uses most of the code.
        if parts.count > 1 { #expect(Double(parts.map(\.utf8.count).max() ?? 0) > 0.9 * Double(capacity)) }
    }

    @Test("BBQr parts of each density fit its QR version", arguments: QRDensity.allCases)
    func bbqrPartsFit(density: QRDensity) throws {
        let parts = try FrameEncoder(density: density).frames(for: .psbt(Self.payload(20_000)), format: .bbqr)
        let capacity = try #require(QRCapacity.alphanumericCharacters(version: density.maxVersion))
        #expect(parts.allSatisfy { $0.utf8.count <= capacity })
    }

    @Test("medium density needs fewer UR frames than Sparrow's 400-byte fragments at the same version")
    func fewerFramesThanFixedFragments() throws {
        let payload = Payload.psbt(Self.payload(40_000))
        let tuned = try FrameEncoder(density: .medium, urExtraParts: 0).frames(for: payload, format: .ur)
        let fixed = try FrameEncoder(urMaxFragmentLength: 400, urExtraParts: 0).frames(for: payload, format: .ur)
        let fixedVersion = QRCapacity.smallestVersion(alphanumericCount: fixed.map(\.utf8.count).max() ?? 0)
        #expect(fixedVersion == QRDensity.medium.maxVersion)
        #expect(tuned.count < fixed.count)
    }

    @Test("an encoder for a QR version equals its density's, and its parts fit that version", arguments: [7, 17, 30])
    func encoderForAVersion(version: Int) throws {
        let encoder = FrameEncoder(qrVersion: version, urExtraParts: 0)
        #expect(encoder.urMaxFragmentLength == FrameEncoder.urFragmentLength(type: "crypto-psbt", version: version))
        #expect(encoder.bbqr.versions == min(5, version)...version)
        let capacity = try #require(QRCapacity.alphanumericCharacters(version: version))
        let payload = Payload.psbt(Self.payload(9_000))
        for format in [FrameFormat.ur, .bbqr] {
            let parts = try encoder.frames(for: payload, format: format)
            #expect(parts.allSatisfy { $0.utf8.count <= capacity })
            #expect(try PayloadDecoder.decode(parts.reversed()).payload == payload)
        }
        let medium = FrameEncoder(density: .medium)
        let seventeen = FrameEncoder(qrVersion: 17)
        #expect(medium.urMaxFragmentLength == seventeen.urMaxFragmentLength)
        #expect(medium.bbqr.versions == seventeen.bbqr.versions)
        // Out-of-range versions are clamped to 1...40, never a crash.
        #expect(FrameEncoder(qrVersion: 99).bbqr.versions.upperBound == 40)
        #expect(FrameEncoder(qrVersion: 0).bbqr.versions == 1...1)
    }
}
