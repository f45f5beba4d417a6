import BitcoinCrypto
import Foundation
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// BIP390 `musig()` key expressions (Tests/Vectors/descriptors/bip390_vectors.json): every valid descriptor gives
/// exactly the scripts listed, every invalid one is rejected with the `DescriptorError` its reason names; plus checks
/// that tie `musig()` to BIP327 KeyAgg and BIP328 derivation computed by hand.
@Suite("BIP390 musig()")
struct BIP390Tests {
    struct Valid: Sendable, CustomTestStringConvertible {
        let descriptor: String
        let scripts: [String]
        let index: Int
        var testDescription: String { "BIP390 valid #\(index)" }
    }

    struct Invalid: Sendable, CustomTestStringConvertible {
        let descriptor: String
        let reason: String
        var testDescription: String { reason }
    }

    static var file: [String: Any] { DescriptorTests.load("bip390") }
    static let valid: [Valid] = (file["valid"] as? [[String: Any]] ?? []).compactMap { entry in
        guard let descriptor = entry["descriptor"] as? String, let scripts = entry["scripts"] as? [String] else {
            return nil
        }
        return Valid(descriptor: descriptor, scripts: scripts, index: entry["bip_index"] as? Int ?? -1)
    }
    static let invalid: [Invalid] = (file["invalid"] as? [[String: Any]] ?? []).compactMap { entry in
        guard let descriptor = entry["descriptor"] as? String, let reason = entry["reason"] as? String else {
            return nil
        }
        return Invalid(descriptor: descriptor, reason: reason)
    }

    // Keys of the BIP's vectors, used below in descriptors of our own.
    static let xpubA =
        "xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL"
    static let xpubB =
        "xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y"
    static let keyA = "02f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9"
    static let keyB = "03dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659"
    static let keyC = "023590a94e768f8e1815c2f24b4d80a8e3149316c3518ce7b7ad338368d038ca66"

    @Test("the vector file holds every case")
    func counts() {
        #expect(Self.valid.count == 4)
        #expect(Self.invalid.count == 9)
    }

    @Test("valid descriptors give exactly the listed scripts", arguments: valid)
    func validDescriptor(vector: Valid) throws {
        let descriptor = try Descriptor(string: vector.descriptor)
        #expect(descriptor.isRanged == (vector.scripts.count > 1))
        for (index, script) in vector.scripts.enumerated() {
            #expect(try descriptor.scriptPubKeys(at: UInt32(index)).map(\.hexString) == [script])
        }
        // The normalised text, public and private, parses back to the same scripts and checksums verify.
        for text in [descriptor.string(), descriptor.string(includingPrivateKeys: true)] {
            #expect(text.contains("musig("))
            let again = try Descriptor(string: text, requireChecksum: true)
            #expect(again.string() == descriptor.string())
            for (index, script) in vector.scripts.enumerated() {
                #expect(try again.scriptPubKeys(at: UInt32(index)).map(\.hexString) == [script])
            }
        }
        #expect(descriptor.string(checksum: false) == vector.descriptor || descriptor.hasPrivateKeys)
    }

    /// The error a vector's reason names, when it names one we can tell from the text.
    static func matches(_ error: DescriptorError, reason: String) -> Bool {
        switch error {
        case .notAllowed(let function, _, _): reason.contains("not allowed") && function == "musig"
        case .rangedMuSigParticipant: reason.contains("ranged participants") || reason.contains("child derivation when")
        case .multipleMultipathSteps: reason.contains("multipath participants")
        case .hardenedDerivationAfterMuSig: reason.contains("hardened")
        case .muSigParticipantNotExtended: reason.contains("xpubs")
        default: false
        }
    }

    @Test("invalid descriptors are rejected with the DescriptorError the reason names", arguments: invalid)
    func invalidDescriptor(vector: Invalid) {
        #expect {
            _ = try Descriptor(string: vector.descriptor).scriptPubKeys(at: 0)
        } throws: { error in
            guard let error = error as? DescriptorError else { return false }
            return Self.matches(error, reason: vector.reason)
        }
    }

    @Test("musig() of hex keys is KeyAgg of those keys after KeySort, as tr() and rawtr() keys")
    func hexParticipants() throws {
        let keys = try [Self.keyA, Self.keyB, Self.keyC].map { try PublicKey(serialized: TestHex.bytes($0)) }
        let sorted = try MuSigAggregateKey(participants: MuSigAggregateKey.sorted(keys))
        let rawtr = try Descriptor(string: "rawtr(musig(\(Self.keyA),\(Self.keyB),\(Self.keyC)))")
        #expect(try rawtr.scriptPubKey() == .p2tr(outputKey: sorted.xOnly))
        let tr = try Descriptor(string: "tr(musig(\(Self.keyA),\(Self.keyB),\(Self.keyC)))")
        #expect(try tr.scriptPubKey() == TaprootSpendInfo(internalKey: sorted.xOnly, tree: nil).scriptPubKey)
        // KeyAgg alone is order-sensitive (the written order, A B C, is not sorted: C < A < B) …
        #expect(try MuSigAggregateKey(participants: keys).xOnly != sorted.xOnly)
        // … but BIP390 sorts first, so every written order gives the same output.
        for order in [[2, 1, 0], [1, 0, 2], [2, 0, 1]] {
            let text = order.map { [Self.keyA, Self.keyB, Self.keyC][$0] }.joined(separator: ",")
            #expect(try Descriptor(string: "rawtr(musig(\(text)))").scriptPubKey() == rawtr.scriptPubKey())
        }
        // Participants print in the order written, 33 bytes each, even where tr() prints keys x-only.
        #expect(tr.string(checksum: false) == "tr(musig(\(Self.keyA),\(Self.keyB),\(Self.keyC)))")
    }

    @Test("ranged participants are derived first, then aggregated per index")
    func rangedParticipants() throws {
        let descriptor = try Descriptor(string: "tr(musig(\(Self.xpubA)/0/*,\(Self.xpubB)/1/*))")
        #expect(descriptor.isRanged)
        let a = try ExtendedPublicKey(base58: Self.xpubA)
        let b = try ExtendedPublicKey(base58: Self.xpubB)
        for index: UInt32 in [0, 1, 7] {
            let keyA = try a.derive(DerivationPath([ChildNumber(rawValue: 0), ChildNumber(rawValue: index)])).publicKey
            let keyB = try b.derive(DerivationPath([ChildNumber(rawValue: 1), ChildNumber(rawValue: index)])).publicKey
            let hex = try Descriptor(string: "tr(musig(\(keyA),\(keyB)))")
            #expect(try descriptor.scriptPubKey(at: index) == hex.scriptPubKey())
            let aggregate = try MuSigAggregateKey(participants: MuSigAggregateKey.sorted([keyA, keyB]))
            #expect(
                try descriptor.scriptPubKey(at: index)
                    == TaprootSpendInfo(internalKey: aggregate.xOnly, tree: nil).scriptPubKey)
        }
        #expect(throws: DescriptorError.indexOutOfRange(0x8000_0000)) {
            _ = try descriptor.scriptPubKey(at: 0x8000_0000)
        }
    }

    @Test("steps after musig() derive unhardened children of the BIP328 synthetic xpub")
    func derivationFromAggregate() throws {
        let descriptor = try Descriptor(string: "rawtr(musig(\(Self.xpubA),\(Self.xpubB))/3/*)")
        let a = try ExtendedPublicKey(base58: Self.xpubA)
        let b = try ExtendedPublicKey(base58: Self.xpubB)
        let sorted = MuSigAggregateKey.sorted([a.publicKey, b.publicKey])
        let synthetic = try MuSigAggregateKey(participants: sorted).extendedPublicKey()
        let same = try Descriptor(string: "rawtr(\(synthetic.base58String)/3/*)")
        for index: UInt32 in [0, 1, 2, 1000] {
            #expect(try descriptor.scriptPubKey(at: index) == same.scriptPubKey(at: index))
        }
        // Not ranged, with a fixed step: still derived from the synthetic xpub.
        let fixed = try Descriptor(string: "rawtr(musig(\(Self.xpubA),\(Self.xpubB))/5)")
        #expect(!fixed.isRanged)
        #expect(try fixed.scriptPubKey() == Descriptor(string: "rawtr(\(synthetic.base58String)/5)").scriptPubKey())
    }

    @Test("musig() keys are allowed in pk() and multi_a() leaves of tr(), and print back")
    func tapscriptLeaves() throws {
        let musig = "musig(\(Self.keyB),\(Self.keyA))"
        // Written B, A; aggregated after KeySort as A, B.
        let written = try [Self.keyB, Self.keyA].map { try PublicKey(serialized: TestHex.bytes($0)) }
        #expect(MuSigAggregateKey.sorted(written) == written.reversed())
        let aggregate = try MuSigAggregateKey(participants: MuSigAggregateKey.sorted(written))
        let leaf = try Descriptor(string: "tr(\(Self.keyC),pk(\(musig)))")
        let plain = try Descriptor(string: "tr(\(Self.keyC),pk(\(aggregate.xOnly.bytes.hexString)))")
        #expect(try leaf.scriptPubKey() == plain.scriptPubKey())
        #expect(leaf.string(checksum: false) == "tr(\(Self.keyC.dropFirst(2)),pk(\(musig)))")
        let multiA = try Descriptor(string: "tr(\(Self.keyC),multi_a(1,\(musig),\(Self.keyC)))")
        let multiAPlain = try Descriptor(
            string: "tr(\(Self.keyC),multi_a(1,\(aggregate.xOnly.bytes.hexString),\(Self.keyC)))")
        #expect(try multiA.scriptPubKey() == multiAPlain.scriptPubKey())
    }

    @Test("multipath: participants or the musig() steps may hold <a;b>, not both")
    func multipath() throws {
        let participants = try Descriptor(string: "tr(musig(\(Self.xpubA)/<0;1>/*,\(Self.xpubB)/<0;1>/*))")
        #expect(participants.multipathCount == 2)
        let branch1 = try Descriptor(string: "tr(musig(\(Self.xpubA)/1/*,\(Self.xpubB)/1/*))")
        #expect(try participants.scriptPubKey(at: 4, path: 1) == branch1.scriptPubKey(at: 4))
        #expect(participants.singlePathDescriptors()[1].string() == branch1.string())
        // A participant without a multipath step is the same key on both branches.
        let mixed = try Descriptor(string: "tr(musig(\(Self.xpubA)/<0;1>/*,\(Self.xpubB)/2/*))")
        let mixed1 = try Descriptor(string: "tr(musig(\(Self.xpubA)/1/*,\(Self.xpubB)/2/*))")
        #expect(try mixed.scriptPubKey(at: 3, path: 1) == mixed1.scriptPubKey(at: 3))
        let outer = try Descriptor(string: "tr(musig(\(Self.xpubA),\(Self.xpubB))/<0;1>/*)")
        let outer1 = try Descriptor(string: "tr(musig(\(Self.xpubA),\(Self.xpubB))/1/*)")
        #expect(try outer.scriptPubKey(at: 9, path: 1) == outer1.scriptPubKey(at: 9))
        #expect(throws: DescriptorError.self) {
            _ = try Descriptor(string: "tr(musig(\(Self.xpubA)/<0;1;2>/*,\(Self.xpubB)/<0;1>/*))")
        }
    }

    @Test("a WIF participant is kept private and printed as its public key")
    func privateParticipant() throws {
        let wif = "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU74sHUHy8S"
        let descriptor = try Descriptor(string: "rawtr(musig(\(wif),\(Self.keyB)))")
        #expect(descriptor.hasPrivateKeys)
        #expect(!descriptor.string().contains(wif))
        #expect(descriptor.string(includingPrivateKeys: true, checksum: false) == "rawtr(musig(\(wif),\(Self.keyB)))")
        #expect(descriptor.network == .main)
    }

    struct Rejected: Sendable, CustomTestStringConvertible {
        let descriptor: String
        let error: DescriptorError
        var testDescription: String { descriptor }
    }

    /// Our own rejected forms (not from the BIP), with the exact error and position.
    static let rejected: [Rejected] = [
        Rejected(
            descriptor: "wsh(pk(musig(\(keyA),\(keyB))))",
            error: .notAllowed(function: "musig", context: "a key outside tr() and rawtr()", position: 7)),
        Rejected(
            descriptor: "tr(musig(\(keyA),musig(\(keyB),\(keyC))))",
            error: .notAllowed(function: "musig", context: "musig()", position: 81)),
        Rejected(
            descriptor: "tr(musig(\(keyA),\(keyB.dropFirst(2))))",
            error: .invalidKey(reason: "musig() participants must be 33-byte compressed keys", position: 76)),
        Rejected(descriptor: "tr(musig(\(keyA),))", error: .invalidKey(reason: "missing key", position: 76)),
        Rejected(descriptor: "tr(musig(\(keyA),\(keyB))/1)", error: .muSigParticipantNotExtended(position: 9)),
        Rejected(descriptor: "tr(musig(\(xpubA),\(xpubB))/1'/2)", error: .hardenedDerivationAfterMuSig(position: 233)),
        Rejected(descriptor: "tr(musig(\(xpubA),\(xpubB)/*)/1)", error: .rangedMuSigParticipant(position: 121)),
        Rejected(
            descriptor: "tr(musig(\(xpubA),\(xpubB))x)",
            error: .syntax(expected: "'/' or the end of musig()", position: 233)),
        Rejected(
            descriptor: "tr([d34db33f]musig(\(keyA),\(keyB)))",
            error: .invalidKeyOrigin(reason: "musig() takes no key origin", position: 3)),
    ]

    @Test("other misuses of musig() are rejected with the exact error", arguments: rejected)
    func rejectedForm(vector: Rejected) {
        #expect(throws: vector.error) { _ = try Descriptor(string: vector.descriptor) }
    }
}
