import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// `tr()` leaves as tapscript miniscript: `pk`, `multi_a` and `sortedmulti_a` leaves keep their descriptor meaning,
/// other leaves are miniscript in the tapscript context (x-only keys in the leaf script), `multi` and insane leaves
/// are refused. (Addresses against BDK and embit: Tests/e2e/test_tap_miniscript_interop.py.)
@Suite("tr() leaves as tapscript miniscript")
struct TapMiniscriptDescriptorTests {
    static func key(_ i: Int) -> String { MiniscriptTapscriptVectorTests.publicKey(i) }

    @Test("pk and multi_a leaves stay descriptor leaves; a miniscript leaf is tapscript miniscript")
    func leafKinds() throws {
        let text =
            "tr(\(Self.key(1)),{{pk(\(Self.key(2))),multi_a(2,\(Self.key(3)),\(Self.key(4)))},"
            + "and_v(v:pk(\(Self.key(5))),older(10))})"
        let descriptor = try Descriptor(string: text)
        guard case .tr(_, let tree?) = descriptor.expression else {
            Issue.record("not tr with a tree")
            return
        }
        let leaves = tree.leaves
        #expect(leaves.count == 3)
        if case .pk = leaves[0] {} else { Issue.record("leaf 0: \(leaves[0])") }
        if case .multiA = leaves[1] {} else { Issue.record("leaf 1: \(leaves[1])") }
        let miniscripts = descriptor.tapLeafMiniscripts
        #expect(miniscripts.count == 1)
        let leaf = try #require(miniscripts.first)
        #expect(leaf.context == .tapscript)
        // <x-only key 5> CHECKSIGVERIFY <10> CHECKSEQUENCEVERIFY: 32-byte push, not 33.
        let xOnly = String(Self.key(5).dropFirst(2))
        #expect(try leaf.script().hexString == "20" + xOnly + "ad" + "5a" + "b2")
        // The printed descriptor (keys x-only in tr()) parses back to the same output script.
        #expect(try Descriptor(string: descriptor.description).scriptPubKey() == descriptor.scriptPubKey())
        // A wsh() miniscript stays P2WSH and is not a tap leaf.
        let wsh = try Descriptor(string: "wsh(and_v(v:pk(\(Self.key(5))),older(10)))")
        #expect(wsh.miniscript?.context == .p2wsh)
        #expect(wsh.tapLeafMiniscripts.isEmpty)
    }

    @Test("multi in a leaf, an insane leaf and multi_a inside wsh() are refused; the controls parse")
    func refusals() throws {
        let (a, b, c) = (Self.key(1), Self.key(2), Self.key(3))
        for text in [
            "tr(\(a),multi(1,\(b),\(c)))", "tr(\(a),or_d(pk(\(b)),older(10)))",
            "tr(\(a),and_v(v:pk(\(b)),pk(\(b))))", "wsh(and_v(v:multi_a(1,\(b),\(c)),older(10)))",
        ] {
            #expect(throws: DescriptorError.self, "\(text)") { try Descriptor(string: text) }
        }
        _ = try Descriptor(string: "tr(\(a),and_v(v:multi_a(1,\(b),\(c)),older(10)))")
        _ = try Descriptor(string: "tr(\(a),or_d(pk(\(b)),and_v(v:pk(\(c)),older(10))))")
    }
}
