import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// The two inheritance policies of issue 17 as `wsh()` descriptors with xpub keys (BIP32 test-vector xpubs, receive
/// and change through `/<0;1>/*`): scripts by the translation table, sanity refusals with controls, satisfaction of
/// the primary and recovery paths with nSequence checks, timelock plans and the policy in words.
@Suite("Miniscript descriptors, sanity and satisfaction")
struct MiniscriptTests {
    static let xpubs = [
        "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8",
        "xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw",
        "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB",
        "xpub661MyMwAqRbcEZVB4dScxMAdx6d4nFc9nvyvH3v4gJL378CSRZiYmhRoP7mBy6gSPSCYk6SzXPTf3ND1cZAceL7SfJ1Z3GC8vBgp2epUt13",
    ]
    static let a = "[d34db33f/48h/0h/0h/2h]\(xpubs[0])/<0;1>/*"
    static let b = "[c0ffee00/48h/0h/0h/2h]\(xpubs[1])/<0;1>/*"
    static let c = "[abcdef01/48h/0h/0h/2h]\(xpubs[2])/<0;1>/*"
    static let d = "[0ddba11a/48h/0h/0h/2h]\(xpubs[3])/<0;1>/*"
    static let inheritance = "wsh(or_d(multi(2,\(a),\(b),\(c)),and_v(v:pk(\(d)),older(10))))"
    static let decaying = "wsh(thresh(2,pk(\(a)),s:pk(\(b)),s:pk(\(c)),sln:older(12)))"

    /// The compressed public key of descriptor key text `key` at `index` of branch `path` (BIP32, checked by the
    /// BIP32 vector suite).
    static func pub(_ key: String, _ index: UInt32, path: Int = 0) throws -> [UInt8] {
        let parsed = try DescriptorKey.parse(Substring(key), position: 0, context: .segwitV0)
        return try parsed.publicKey(at: index, path: path).key.compressed
    }

    /// A distinct placeholder signature per key (the satisfier only places them; it does not check them).
    static func sig(_ n: UInt8) -> [UInt8] { [0x30, n] + [UInt8](repeating: n, count: 69) + [0x01] }

    static func asm(_ parts: [String]) -> String { parts.joined(separator: " ") }

    @Test("wsh(or_d(multi,and_v(v:pk,older))) compiles by the translation table, both branches of /<0;1>/*")
    func inheritanceScript() throws {
        let descriptor = try Descriptor(string: Self.inheritance)
        let miniscript = try #require(descriptor.miniscript)
        #expect(descriptor.multipathCount == 2)
        for path in 0..<2 {
            for index: UInt32 in [0, 1, 7] {
                let script = try miniscript.script(at: index, path: path)
                let keys = try [Self.a, Self.b, Self.c, Self.d].map { try Self.pub($0, index, path: path).hexString }
                #expect(
                    script.description
                        == Self.asm([
                            "OP_2", keys[0], keys[1], keys[2], "OP_3", "OP_CHECKMULTISIG", "OP_IFDUP", "OP_NOTIF",
                            keys[3], "OP_CHECKSIGVERIFY", "OP_10", "OP_CHECKSEQUENCEVERIFY", "OP_ENDIF",
                        ]))
                #expect(try descriptor.scriptPubKey(at: index, path: path) == script.p2wshWrapped)
            }
        }
    }

    @Test("wsh(thresh(2,pk,s:pk,s:pk,sln:older)) compiles by the translation table")
    func decayingScript() throws {
        let descriptor = try Descriptor(string: Self.decaying)
        let miniscript = try #require(descriptor.miniscript)
        let keys = try [Self.a, Self.b, Self.c].map { try Self.pub($0, 3, path: 1).hexString }
        #expect(
            try miniscript.script(at: 3, path: 1).description
                == Self.asm([
                    keys[0], "OP_CHECKSIG", "OP_SWAP", keys[1], "OP_CHECKSIG", "OP_ADD", "OP_SWAP", keys[2],
                    "OP_CHECKSIG", "OP_ADD", "OP_SWAP", "OP_IF", "0", "OP_ELSE", "OP_12", "OP_CHECKSEQUENCEVERIFY",
                    "OP_0NOTEQUAL", "OP_ENDIF", "OP_ADD", "OP_2", "OP_EQUAL",
                ]))
    }

    @Test("the descriptor prints back as written (sugar kept) and its checksum verifies")
    func roundTrip() throws {
        for text in [Self.inheritance, Self.decaying] {
            let descriptor = try Descriptor(string: text)
            #expect(descriptor.string(checksum: false) == text)
            let again = try Descriptor(string: descriptor.description, requireChecksum: true)
            #expect(try again.scriptPubKey(at: 5, path: 1) == descriptor.scriptPubKey(at: 5, path: 1))
        }
        let nested = try Descriptor(string: "sh(\(Self.inheritance))")
        #expect(nested.miniscript != nil)
        #expect(try nested.address(at: 0, network: .main).description.hasPrefix("3"))
        #expect(try Descriptor(string: Self.inheritance).address(at: 0, network: .main).description.hasPrefix("bc1q"))
    }

    @Test("plain wsh(multi) and wsh(pk) still parse as before, not as miniscript")
    func plainForms() throws {
        let multi = try Descriptor(string: "wsh(multi(2,\(Self.a),\(Self.b)))")
        #expect(multi.miniscript == nil)
        guard case .wsh(.multi(2, _, false)) = multi.expression else {
            Issue.record("wsh(multi) parsed as \(multi.expression)")
            return
        }
    }

    static let refusals: [(String, String, MiniscriptError?)] = [
        // (attack, control): the control differs only in what the check is about.
        ("wsh(v:pk(\(a)))", "wsh(c:pk_k(\(a)))", .notTopLevelB(type: "Vonfsmxk")),
        (
            "wsh(and_v(v:pk(\(a)),and_v(v:after(100),after(500000001))))",
            "wsh(or_i(and_v(v:pk(\(a)),after(100)),and_v(v:pk(\(b)),after(500000001))))", .timelockMix
        ),
        (
            "wsh(or_d(pk(\(a)),and_v(v:pk(\(a)),older(10))))", "wsh(or_d(pk(\(a)),and_v(v:pk(\(d)),older(10))))",
            .duplicateKey(a)
        ),
        (
            "wsh(or_d(pk(\(a)),and_v(v:pk(\(xpubs[0])/<0;1>/*),older(10))))",
            "wsh(or_d(pk(\(a)),and_v(v:pk(\(xpubs[3])/<0;1>/*),older(10))))", .duplicateKey("\(xpubs[0])/<0;1>/*")
        ),
        ("wsh(or_d(pk(\(a)),older(10)))", "wsh(or_d(pk(\(a)),and_v(v:pk(\(d)),older(10))))", .noSignatureNeeded),
        (
            "wsh(thresh(1,pk(\(a)),altv:after(1000000000),altv:after(100)))",
            "wsh(thresh(2,pk(\(a)),s:pk(\(b)),altv:after(100)))", .malleable
        ),
        ("wsh(and_v(1,pk(\(a))))", "wsh(and_v(v:1,pk(\(a))))", nil),
        ("wsh(or_d(pk(\(a)),and_v(v:pk(\(d)),older(0))))", "wsh(or_d(pk(\(a)),and_v(v:pk(\(d)),older(1))))", nil),
        ("wsh(or_d(pk(\(a)),and_v(v:pk(\(d)),older(+1))))", "wsh(or_d(pk(\(a)),and_v(v:pk(\(d)),older(65535))))", nil),
        ("wsh(thresh(3,pk(\(a)),s:pk(\(b))))", "wsh(thresh(2,pk(\(a)),s:pk(\(b))))", nil),
        ("wsh(or_d(pk(\(a)),x:pk(\(b))))", "wsh(or_d(pk(\(a)),pk(\(b))))", nil),
        ("sh(or_d(pk(\(a)),pk(\(b))))", "sh(wsh(or_d(pk(\(a)),pk(\(b)))))", nil),
    ]

    @Test(
        "insane or ill-typed miniscripts are refused with the reason; the controls parse", arguments: refusals.indices)
    func refusal(_ index: Int) throws {
        let (attack, control, reason) = Self.refusals[index]
        do {
            _ = try Descriptor(string: attack)
            Issue.record("accepted \(attack)")
        } catch {
            if let reason { #expect(error == .miniscript(reason)) }
        }
        _ = try Descriptor(string: control)
    }

    @Test("resource limit: more than 201 opcodes is refused; a smaller tree of the same shape is not")
    func opsLimit() throws {
        func tree(_ groups: Int) -> String {
            let multis = (0..<groups).map { g in
                "multi(1," + (0..<20).map { "\(Self.xpubs[0])/\(g * 20 + $0)" }.joined(separator: ",") + ")"
            }
            return "wsh(and_v(v:pk(\(Self.d)),thresh(1," + multis[0] + multis.dropFirst().map { ",a:" + $0 }.joined()
                + ")))"
        }
        #expect(throws: DescriptorError.self) { try Descriptor(string: tree(10)) }
        do {
            _ = try Descriptor(string: tree(10))
        } catch {
            guard case .miniscript(.tooManyOps(let n)) = error else {
                Issue.record("expected tooManyOps, got \(error)")
                return
            }
            #expect(n > 201)
        }
        _ = try Descriptor(string: tree(2))
    }

    // MARK: satisfaction

    @Test("inheritance: the primary path takes two cosigners' signatures and no timelock")
    func inheritancePrimary() throws {
        let ms = try #require(try Descriptor(string: Self.inheritance).miniscript)
        let (ka, kb) = (try Self.pub(Self.a, 4), try Self.pub(Self.b, 4))
        let satisfier = MiniscriptSatisfier(signatures: [ka: Self.sig(1), kb: Self.sig(2)], sequence: 0xFFFF_FFFD)
        let sat = try #require(try ms.satisfy(at: 4, with: satisfier))
        #expect(sat.stack == [[], Self.sig(1), Self.sig(2)])
        #expect(sat.relativeTimelock == nil && sat.absoluteTimelock == nil)
        #expect(sat.signingKeys == [ka, kb])
        let script = try ms.script(at: 4)
        #expect(sat.witness(script: script) == [[], Self.sig(1), Self.sig(2), script.bytes])
        // One cosigner alone cannot spend before the timelock.
        #expect(try ms.satisfy(at: 4, with: MiniscriptSatisfier(signatures: [ka: Self.sig(1)])) == nil)
        // Signatures for another index's keys do not count.
        let other = MiniscriptSatisfier(signatures: [
            try Self.pub(Self.a, 5): Self.sig(1), try Self.pub(Self.b, 5): Self.sig(2),
        ])
        #expect(try ms.satisfy(at: 4, with: other) == nil)
    }

    @Test("inheritance: the recovery key spends with nSequence ≥ 10, not with 9 or a disabled relative lock")
    func inheritanceRecovery() throws {
        let ms = try #require(try Descriptor(string: Self.inheritance).miniscript)
        let kd = try Self.pub(Self.d, 2, path: 1)
        let signatures = [kd: Self.sig(4)]
        for sequence: UInt32 in [10, 11, 0xFFFF] {
            let sat = try #require(
                try ms.satisfy(at: 2, path: 1, with: MiniscriptSatisfier(signatures: signatures, sequence: sequence)))
            // D's signature under the multisig's dissatisfaction (k+1 empty elements).
            #expect(sat.stack == [Self.sig(4), [], [], []])
            #expect(sat.relativeTimelock == 10)
            #expect(sat.signingKeys == [kd])
        }
        for sequence: UInt32 in [9, 0, 0xFFFF_FFFD, 0xFFFF_FFFF, (1 << 22) | 10, (1 << 31) | 10] {
            #expect(
                try ms.satisfy(at: 2, path: 1, with: MiniscriptSatisfier(signatures: signatures, sequence: sequence))
                    == nil, "nSequence \(sequence)")
        }
    }

    @Test("decaying: 2 of 3 now; after 12 blocks one key with the timelock satisfied")
    func decaying() throws {
        let ms = try #require(try Descriptor(string: Self.decaying).miniscript)
        let (ka, kb, kc) = (try Self.pub(Self.a, 0), try Self.pub(Self.b, 0), try Self.pub(Self.c, 0))
        let now = MiniscriptSatisfier(signatures: [ka: Self.sig(1), kc: Self.sig(3)], sequence: 0xFFFF_FFFE)
        let primary = try #require(try ms.satisfy(with: now))
        // Top of the stack first in the script: A's signature, B dissatisfied, C's signature, the timelock branch
        // dissatisfied through or_i's IF side (1).
        #expect(primary.stack == [[1], Self.sig(3), [], Self.sig(1)])
        #expect(primary.relativeTimelock == nil)
        let one = [kb: Self.sig(2)]
        #expect(try ms.satisfy(with: MiniscriptSatisfier(signatures: one, sequence: 11)) == nil)
        let later = try #require(try ms.satisfy(with: MiniscriptSatisfier(signatures: one, sequence: 12)))
        #expect(later.stack == [[], [], Self.sig(2), []])
        #expect(later.relativeTimelock == 12)
    }

    @Test("plans: which timelock the holders of some keys need (for nSequence / nLockTime)")
    func plans() throws {
        let inheritance = try #require(try Descriptor(string: Self.inheritance).miniscript)
        let (ka, kb, kd) = (try Self.pub(Self.a, 0), try Self.pub(Self.b, 0), try Self.pub(Self.d, 0))
        #expect(try inheritance.plan(keys: [kd])?.relativeTimelock == 10)
        let primary = try #require(try inheritance.plan(keys: [ka, kb]))
        #expect(primary.relativeTimelock == nil && primary.absoluteTimelock == nil)
        #expect(try inheritance.plan(keys: [ka]) == nil)
        let absolute = try #require(
            try Descriptor(string: "wsh(or_d(pk(\(Self.a)),and_v(v:pk(\(Self.d)),after(840000))))").miniscript)
        let plan = try #require(try absolute.plan(keys: [kd]))
        #expect(plan.absoluteTimelock == 840_000 && plan.relativeTimelock == nil)
        // A real satisfaction of after() needs nLockTime ≥ the height and a non-final nSequence.
        let signatures = [kd: Self.sig(4)]
        #expect(try absolute.satisfy(with: MiniscriptSatisfier(signatures: signatures, lockTime: 840_000)) != nil)
        #expect(try absolute.satisfy(with: MiniscriptSatisfier(signatures: signatures, lockTime: 839_999)) == nil)
        #expect(
            try absolute.satisfy(
                with: MiniscriptSatisfier(signatures: signatures, sequence: 0xFFFF_FFFF, lockTime: 840_000)) == nil)
        #expect(try absolute.satisfy(with: MiniscriptSatisfier(signatures: signatures, lockTime: 1_700_000_000)) == nil)
    }

    // MARK: words

    static func names(_ key: DescriptorKey) -> String? {
        switch key.origin?.fingerprint.description {
        case "d34db33f": "Alice"
        case "c0ffee00": "Bob"
        case "abcdef01": "Carol"
        case "0ddba11a": "Dad"
        default: nil
        }
    }

    @Test("the policy in words for the signer's review")
    func words() throws {
        let inheritance = try #require(try Descriptor(string: Self.inheritance).miniscript)
        #expect(
            inheritance.policyDescription(name: Self.names)
                == "2 of Alice, Bob, Carol; or Dad after 10 blocks (about 100 minutes)")
        #expect(
            inheritance.policyDescription()
                == "2 of key d34db33f, key c0ffee00, key abcdef01; or key 0ddba11a after 10 blocks (about 100 minutes)")
        let decaying = try #require(try Descriptor(string: Self.decaying).miniscript)
        #expect(
            decaying.policyDescription(name: Self.names)
                == "2 of Alice, Bob, Carol; or 1 of Alice, Bob, Carol after 12 blocks (about 2 hours)")
        let year = try #require(
            try Descriptor(
                string: "wsh(or_d(multi(2,\(Self.a),\(Self.b),\(Self.c)),and_v(v:pk(\(Self.d)),older(52560))))"
            )
            .miniscript)
        #expect(
            year.policyDescription(name: Self.names)
                == "2 of Alice, Bob, Carol; or Dad after 52,560 blocks (about 365 days)")
        let dated = try #require(
            try Descriptor(
                string:
                    "wsh(andor(pk(\(Self.a)),after(1767225600),and_v(v:pk(\(Self.b)),or_i(pk(\(Self.c)),pk(\(Self.d))))))"
            ).miniscript)
        #expect(
            dated.policyDescription(name: Self.names)
                == "Alice after 2026-01-01 00:00 UTC; or Bob and (Carol; or Dad)")
        let time = try #require(
            try Descriptor(string: "wsh(and_v(v:pk(\(Self.a)),older(4194474)))").miniscript)
        #expect(time.policyDescription(name: Self.names) == "Alice after 87,040 seconds (about 24 hours)")
    }
}
