import Bitcoin
import Descriptors
import Foundation
import Testing

@testable import Watcher

/// `send --recovery`'s choice of path in a miniscript policy (docs/miniscript.md): the fewest keys that can spend
/// only with a timelock, or the keys `--keys` names; and from which tip height the spend is valid.
@Suite("Policy paths for send --recovery")
struct PolicyPathTests {
    static let xpubs = [
        "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8",
        "xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw",
        "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB",
        "xpub661MyMwAqRbcEZVB4dScxMAdx6d4nFc9nvyvH3v4gJL378CSRZiYmhRoP7mBy6gSPSCYk6SzXPTf3ND1cZAceL7SfJ1Z3GC8vBgp2epUt13",
    ]
    static let fingerprints = ["d34db33f", "c0ffee00", "abcdef01", "0ddba11a"]
    static func key(_ n: Int) -> String { "[\(fingerprints[n])/48h/0h/0h/2h]\(xpubs[n])/<0;1>/*" }
    static let inheritance =
        "wsh(or_d(multi(2,\(key(0)),\(key(1)),\(key(2))),and_v(v:pk(\(key(3))),older(10))))"
    static let decaying = "wsh(thresh(2,pk(\(key(0))),s:pk(\(key(1))),s:pk(\(key(2))),sln:older(12)))"

    static func miniscript(_ text: String) throws -> Miniscript {
        try #require(try Descriptor(string: text).miniscript)
    }

    @Test("the default rule: Dad alone after 10 blocks; in the decaying wallet the first key alone after 12")
    func defaultRule() throws {
        let p1 = try PolicyPath.recovery(of: Self.miniscript(Self.inheritance), fingerprints: nil)
        #expect(p1 == PolicyPath(relativeTimelock: 10, absoluteTimelock: nil, signers: ["0ddba11a"]))
        let p2 = try PolicyPath.recovery(of: Self.miniscript(Self.decaying), fingerprints: nil)
        #expect(p2 == PolicyPath(relativeTimelock: 12, absoluteTimelock: nil, signers: ["d34db33f"]))
    }

    @Test("--keys names the signer; keys of the primary path, unknown keys and too few keys are refused")
    func namedKeys() throws {
        let p2 = try Self.miniscript(Self.decaying)
        #expect(try PolicyPath.recovery(of: p2, fingerprints: ["ABCDEF01"]).signers == ["abcdef01"])
        let p1 = try Self.miniscript(Self.inheritance)
        #expect(throws: SpendError.self) { try PolicyPath.recovery(of: p1, fingerprints: ["d34db33f", "c0ffee00"]) }
        #expect(throws: SpendError.self) { try PolicyPath.recovery(of: p1, fingerprints: ["d34db33f"]) }
        #expect(throws: SpendError.self) { try PolicyPath.recovery(of: p1, fingerprints: ["99999999"]) }
        #expect(try PolicyPath.recovery(of: p1, fingerprints: ["0ddba11a"]).relativeTimelock == 10)
        // A policy without any timelock has no recovery path.
        let plain = try Self.miniscript("wsh(or_d(pk(\(Self.key(0))),pk(\(Self.key(1)))))")
        #expect(throws: SpendError.self) { try PolicyPath.recovery(of: plain, fingerprints: nil) }
    }

    static let h = "50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0"

    static func tree(_ text: String) throws -> DescriptorTapTree {
        guard case .tr(_, let tree?) = try Descriptor(string: text).expression else {
            throw SpendError.inconsistent("not tr")
        }
        return tree
    }

    @Test("taproot leaves: the heir's leaf by default and by --keys; primary-leaf keys and non-spending keys refused")
    func tapLeaves() throws {
        let tree = try Self.tree(
            "tr(\(Self.h),{and_v(v:pk(\(Self.key(3))),older(10)),multi_a(2,\(Self.key(0)),\(Self.key(1)),\(Self.key(2)))})"
        )
        let heir = PolicyPath(relativeTimelock: 10, absoluteTimelock: nil, signers: ["0ddba11a"], leaf: 1)
        #expect(try PolicyPath.recovery(ofTree: tree, fingerprints: nil) == heir)
        #expect(try PolicyPath.recovery(ofTree: tree, fingerprints: ["0DDBA11A"]) == heir)
        // With a cosigner too, Dad's leaf is still the timelocked one those keys can spend.
        #expect(try PolicyPath.recovery(ofTree: tree, fingerprints: ["0ddba11a", "d34db33f"]) == heir)
        #expect(
            throws: SpendError.inconsistent(
                "--keys d34db33f,c0ffee00 can spend without a timelock: that is the primary path (send without --recovery)"
            )
        ) { try PolicyPath.recovery(ofTree: tree, fingerprints: ["d34db33f", "c0ffee00"]) }
        #expect(throws: SpendError.inconsistent("--keys abcdef01 cannot spend under this policy")) {
            try PolicyPath.recovery(ofTree: tree, fingerprints: ["abcdef01"])
        }
        #expect(throws: SpendError.self) { try PolicyPath.recovery(ofTree: tree, fingerprints: ["99999999"]) }
    }

    @Test(
        "taproot leaves: the earliest timelock wins by default, --keys picks the other leaf; no timelock, no path")
    func tapLeavesEarliest() throws {
        let tree = try Self.tree(
            "tr(\(Self.h),{and_v(v:pk(\(Self.key(0))),older(20)),and_v(v:pk(\(Self.key(1))),after(500))})")
        // The rule compares (older, after): a leaf without older() comes first, as in wsh().
        #expect(
            try PolicyPath.recovery(ofTree: tree, fingerprints: nil)
                == PolicyPath(relativeTimelock: nil, absoluteTimelock: 500, signers: ["c0ffee00"], leaf: 2))
        #expect(
            try PolicyPath.recovery(ofTree: tree, fingerprints: ["d34db33f"])
                == PolicyPath(relativeTimelock: 20, absoluteTimelock: nil, signers: ["d34db33f"], leaf: 1))
        let tree2 = try Self.tree(
            "tr(\(Self.h),{and_v(v:pk(\(Self.key(0))),older(20)),and_v(v:pk(\(Self.key(1))),older(5))})")
        #expect(
            try PolicyPath.recovery(ofTree: tree2, fingerprints: nil)
                == PolicyPath(relativeTimelock: 5, absoluteTimelock: nil, signers: ["c0ffee00"], leaf: 2))
        #expect(
            try PolicyPath.recovery(ofTree: tree2, fingerprints: ["d34db33f"])
                == PolicyPath(relativeTimelock: 20, absoluteTimelock: nil, signers: ["d34db33f"], leaf: 1))
        let plain = try Self.tree("tr(\(Self.h),{and_v(v:pk(\(Self.key(0))),pk(\(Self.key(1)))),pk(\(Self.key(2)))})")
        #expect(throws: SpendError.self) { try PolicyPath.recovery(ofTree: plain, fingerprints: nil) }
    }

    @Test("valid from: a coin confirmed at height h with older(n) is accepted at tip h + n - 1")
    func validFrom() {
        let path = PolicyPath(relativeTimelock: 10, absoluteTimelock: nil, signers: [])
        #expect(path.validFromTip(coinHeight: 200, lockTime: 150) == 209)
        #expect(path.validFromTip(coinHeight: nil, lockTime: 150) == nil)
        let absolute = PolicyPath(relativeTimelock: nil, absoluteTimelock: 300, signers: [])
        #expect(absolute.validFromTip(coinHeight: 200, lockTime: 300) == 300)
        #expect(absolute.validFromTip(coinHeight: 200, lockTime: 1_700_000_000) == nil)
    }
}
