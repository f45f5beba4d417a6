import Foundation
import TestSupport
import Testing

@testable import Bitcoin
@testable import Descriptors

/// Bitcoin Core's miniscript unit-test vectors (Tests/Vectors/miniscript, from sipa/miniscript 6806dfb1, P2WSH
/// context): validity, script bytes, the malleability / signature / timelock-mix properties, opcode counts and stack
/// sizes of every `Test(…)` case, and the duplicate-key and MINIMALIF cases.
@Suite("Miniscript vectors (Bitcoin Core miniscript_tests)")
struct MiniscriptVectorTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let miniscript: String
        let script: String
        let mode: [String]
        let ops: Int?
        let stackSize: Int?
        var testDescription: String { String(miniscript.prefix(60)) }
    }

    struct File: Decodable, Sendable {
        struct MultiCase: Decodable, Sendable {
            let miniscript: String
            let ops: Int
            let stackSize: Int
        }
        let cases: [Case]
        let notSane: [String]
        let sane: [String]
        let notValid: [String]
        let multiOpsStack: MultiCase
    }

    static let file: File? = try? Vectors.json("miniscript/miniscript_tests.json")

    @Test("the vector file loads with all 95 cases")
    func fileLoads() throws {
        let file = try #require(Self.file)
        #expect(file.cases.count == 95)
        #expect(file.cases.filter { $0.mode == ["INVALID"] }.count > 20)
    }

    @Test("each case", arguments: file?.cases ?? [])
    func vector(_ entry: Case) throws {
        if entry.mode == ["INVALID"] {
            #expect(throws: MiniscriptError.self) { _ = try Miniscript(string: entry.miniscript) }
            return
        }
        let ms = try Miniscript(string: entry.miniscript)
        #expect(ms.type.contains(.base), "top level B: \(ms.type)")
        let script = try ms.script()
        if entry.script != "?" { #expect(script.hexString == entry.script) }
        #expect(ms.isNonMalleable == entry.mode.contains("NONMAL"))
        #expect(ms.needsSignature == entry.mode.contains("NEEDSIG"))
        #expect(ms.hasTimelockMix == entry.mode.contains("TIMELOCKMIX"))
        if let ops = entry.ops { #expect(ms.maxOps == ops) }
        if let stack = entry.stackSize { #expect(ms.maxSatisfactionItems.map { $0 + 1 } == stack) }
        // Printing and parsing again gives the same script (the sugar round-trips).
        let reparsed = try Miniscript(string: ms.description)
        #expect(try reparsed.script() == script)
    }

    @Test("duplicate keys and timelock mixes are valid but not sane; the control is sane")
    func sanity() throws {
        let file = try #require(Self.file)
        for text in file.notSane {
            let ms = try Miniscript(string: text)
            #expect(!ms.isSane, "\(text)")
        }
        #expect(
            throws: MiniscriptError.duplicateKey("03d30199d74fb5a22d47b6e054e2f378cedacffcb89904a61d75d0dbd407143e65")
        ) {
            try Miniscript(string: file.notSane[0]).checkSane()
        }
        #expect(throws: MiniscriptError.timelockMix) { try Miniscript(string: file.notSane[4]).checkSane() }
        for text in file.sane { try Miniscript(string: text).checkSane() }
    }

    @Test("d: is not u under P2WSH, so it cannot be a thresh argument (MINIMALIF is only policy)")
    func minimalIf() throws {
        let file = try #require(Self.file)
        for text in file.notValid {
            #expect(throws: MiniscriptError.self) { _ = try Miniscript(string: text) }
        }
    }

    @Test("multi: the opcode count is the keys plus CHECKMULTISIG, the stack the signatures plus the dummy")
    func multiCounts() throws {
        let entry = try #require(Self.file).multiOpsStack
        let ms = try Miniscript(string: entry.miniscript)
        #expect(ms.maxOps == entry.ops)
        #expect(ms.maxSatisfactionItems.map { $0 + 1 } == entry.stackSize)
    }
}
