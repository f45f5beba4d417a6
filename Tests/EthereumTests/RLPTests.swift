import Foundation
import TestSupport
import Testing

@testable import Ethereum

/// ethereum/tests RLPTests: every valid case encodes to its `out` and decodes back; every invalid case is refused.
@Suite("RLP")
struct RLPTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let input: RLP?
        let out: [UInt8]
        var testDescription: String { name }
    }

    /// The test's `in` as an RLP item: strings are UTF-8 bytes, `#digits` and numbers are big integers.
    static func item(_ value: Any) -> RLP? {
        switch value {
        case let s as String:
            if s.hasPrefix("#") { return decimalBytes(String(s.dropFirst())).map { .bytes($0) } }
            return .bytes(Array(s.utf8))
        case let n as NSNumber:
            return decimalBytes(n.stringValue).map { .bytes($0) }
        case let list as [Any]:
            let items = list.compactMap(item)
            return items.count == list.count ? .list(items) : nil
        default:
            return nil
        }
    }

    /// Minimal big-endian bytes of a decimal of any size (the `bigint` case is 2^256, wider than a word).
    static func decimalBytes(_ digits: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        for d in digits {
            guard let digit = d.wholeNumberValue else { return nil }
            var carry = digit
            for i in bytes.indices.reversed() {
                let value = Int(bytes[i]) * 10 + carry
                bytes[i] = UInt8(value & 0xFF)
                carry = value >> 8
            }
            while carry > 0 {
                bytes.insert(UInt8(carry & 0xFF), at: 0)
                carry >>= 8
            }
        }
        return Array(bytes.drop { $0 == 0 })
    }

    static func load(_ path: String, valid: Bool) -> [Case] {
        guard let root = try? Vectors.anyJSON(path) as? [String: [String: Any]] else { return [] }
        return root.keys.sorted().compactMap { name in
            guard let entry = root[name], let out = entry["out"] as? String else { return nil }
            let input = valid ? entry["in"].flatMap(item) : nil
            return Case(
                name: name, input: input, out: TestHex.bytes(out.hasPrefix("0x") ? String(out.dropFirst(2)) : out))
        }
    }

    static let valid = load("ethereum/rlp/rlptest.json", valid: true)
    static let invalid = load("ethereum/rlp/invalidRLPTest.json", valid: false)

    @Test("The files load whole: 28 valid and 26 invalid cases")
    func counts() {
        #expect(Self.valid.count == 28)
        #expect(Self.valid.allSatisfy { $0.input != nil })
        #expect(Self.invalid.count == 26)
    }

    @Test("Valid: encodes to `out`, and `out` decodes to the same item", arguments: valid)
    func validCase(c: Case) throws {
        let input = try #require(c.input)
        #expect(input.serialized() == c.out)
        #expect(try RLP(serialized: c.out) == input)
    }

    @Test("Invalid: refused", arguments: invalid)
    func invalidCase(c: Case) {
        #expect(throws: RLPError.self) { try RLP(serialized: c.out) }
    }

    @Test("Strictness: each non-canonical form is refused with its reason, its canonical twin accepted")
    func strictness() throws {
        #expect(throws: RLPError.nonCanonicalSingleByte(offset: 0)) { try RLP(serialized: [0x81, 0x05]) }
        #expect(try RLP(serialized: [0x05]) == .bytes([0x05]))
        #expect(try RLP(serialized: [0x81, 0x80]) == .bytes([0x80]))
        let shortInLongForm: [UInt8] = [0xB8, 0x02, 0x61, 0x62]
        #expect(throws: RLPError.longFormForShortLength(offset: 0)) { try RLP(serialized: shortInLongForm) }
        #expect(try RLP(serialized: [0x82, 0x61, 0x62]) == .bytes([0x61, 0x62]))
        let leadingZero: [UInt8] = [0xB9, 0x00, 0x38] + [UInt8](repeating: 0x61, count: 56)
        #expect(throws: RLPError.leadingZeroInLength(offset: 0)) { try RLP(serialized: leadingZero) }
        let canonical: [UInt8] = [0xB8, 0x38] + [UInt8](repeating: 0x61, count: 56)
        #expect(try RLP(serialized: canonical) == .bytes([UInt8](repeating: 0x61, count: 56)))
        #expect(throws: RLPError.trailingBytes(count: 1)) { try RLP(serialized: [0x80, 0x80]) }
        #expect(throws: RLPError.nonCanonicalInteger) { try RLP.bytes([0x00, 0x01]).uint64() }
        #expect(try RLP.bytes([0x01, 0x00]).uint64() == 256)
    }

    @Test("Deep nesting is refused rather than recursing without bound")
    func depth() throws {
        let deep = (0..<100).reduce(RLP.list([])) { inner, _ in .list([inner]) }.serialized()
        #expect(throws: RLPError.tooDeep) { try RLP(serialized: deep) }
        let shallow = (0..<10).reduce(RLP.list([])) { inner, _ in .list([inner]) }
        #expect(try RLP(serialized: shallow.serialized()) == shallow)
    }
}
