import TestSupport
import Testing

@testable import AirgapTransport

/// RFC 8949 section 4.2 deterministic encoding, the subset BC-UR needs (examples from RFC 8949 appendix A).
@Suite("Deterministic CBOR (RFC 8949 section 4.2)")
struct CBORTests {
    @Test(
        "RFC 8949 appendix A examples round-trip",
        arguments: [
            ("00", CBOR.unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
            ("1a000f4240", .unsigned(1_000_000)), ("1b000000e8d4a51000", .unsigned(1_000_000_000_000)),
            ("20", .negative(0)), ("3863", .negative(99)), ("40", .bytes([])), ("4401020304", .bytes([1, 2, 3, 4])),
            ("6161", .text("a")), ("62c3bc", .text("ü")), ("80", .array([])),
            (
                "8301820203820405",
                .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])
            ),
            ("a201020304", .map([CBORMapEntry(.unsigned(1), .unsigned(2)), CBORMapEntry(.unsigned(3), .unsigned(4))])),
            ("c11a514b67b0", .tagged(1, .unsigned(1_363_896_240))), ("f4", .bool(false)), ("f5", .bool(true)),
            ("f6", .null),
        ])
    func roundTrip(hex: String, value: CBOR) throws {
        #expect(value.serialized() == TestHex.bytes(hex))
        #expect(try CBOR(serialized: TestHex.bytes(hex)) == value)
    }

    @Test(
        "Non-canonical, truncated and unsupported input is rejected with the right error",
        arguments: [
            ("1817", CBORError.nonMinimalEncoding(offset: 0)),
            ("190017", .nonMinimalEncoding(offset: 0)),
            ("5801ff", .nonMinimalEncoding(offset: 0)),
            ("5f", .indefiniteLength(offset: 0)),
            ("1c", .reservedAdditionalInformation(offset: 0)),
            ("f97e00", .unsupportedSimpleValue(offset: 0)),
            ("f7", .unsupportedSimpleValue(offset: 0)),
            ("440102", .lengthTooLarge(offset: 0, length: 4)),
            ("19", .truncated(offset: 1)),
            ("62c3", .lengthTooLarge(offset: 0, length: 2)),
            ("62c328", .invalidUTF8(offset: 0)),
            ("a203040102", .unsortedMapKeys(offset: 3)),
            ("a201020102", .duplicateMapKey(offset: 3)),
            ("0000", .trailingBytes(count: 1)),
            ("9bffffffffffffffff", .lengthTooLarge(offset: 0, length: UInt64.max)),
        ])
    func rejected(hex: String, error: CBORError) throws {
        #expect(throws: error) { try CBOR(serialized: TestHex.bytes(hex)) }
    }

    @Test("Nesting is bounded")
    func depth() throws {
        let deep = [UInt8](repeating: 0x81, count: 40) + [0x00]
        #expect(throws: CBORError.nestingTooDeep(limit: CBOR.maxDepth)) { try CBOR(serialized: deep) }
        let ok = [UInt8](repeating: 0x81, count: 30) + [0x00]
        #expect(try CBOR(serialized: ok).serialized() == ok)
    }

    @Test("The encoder sorts map keys")
    func sorting() {
        let map = CBOR.map([CBORMapEntry(.unsigned(10), .null), CBORMapEntry(.unsigned(2), .null)])
        #expect(TestHex.string(map.serialized()) == "a202f60af6")
    }
}
