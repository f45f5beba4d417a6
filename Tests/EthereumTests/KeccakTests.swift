import TestSupport
import Testing

@testable import Ethereum

/// Keccak-256 against the Keccak team's ShortMsgKAT_256 (byte-aligned messages, as pycryptodome ships them), and
/// the same sponge with FIPS 202 padding against XKCP's SHA3-256 KAT, which shows the two paddings differ.
@Suite("Keccak-256")
struct KeccakTests {
    struct KAT: Sendable, CustomTestStringConvertible {
        let bits: Int
        let message: [UInt8]
        let digest: [UInt8]
        var testDescription: String { "Len = \(bits)" }
    }

    /// Reads `Len = / Msg = / MD =` records; keeps byte-aligned lengths (the sponge here takes whole bytes).
    static func load(_ path: String) -> [KAT] {
        guard let text = try? Vectors.text(path) else { return [] }
        var cases: [KAT] = []
        var bits: Int?
        var message: [UInt8] = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "Len": bits = Int(parts[1])
            case "Msg": message = TestHex.bytes(parts[1])
            case "MD":
                if let b = bits, b % 8 == 0 {
                    cases.append(KAT(bits: b, message: Array(message.prefix(b / 8)), digest: TestHex.bytes(parts[1])))
                }
            default: break
            }
        }
        return cases
    }

    static let keccak = load("ethereum/keccak/ShortMsgKAT_256.txt")
    static let sha3 = load("ethereum/keccak/ShortMsgKAT_SHA3-256.txt")

    @Test("The KAT files load: 256 Keccak-256 cases and 256 byte-aligned SHA3-256 cases")
    func counts() {
        #expect(Self.keccak.count == 256)
        #expect(Self.sha3.count == 256)
    }

    @Test("Keccak-256 ShortMsgKAT", arguments: keccak)
    func keccak256(kat: KAT) {
        #expect(Keccak256.hash(kat.message) == kat.digest)
    }

    @Test("The same permutation with SHA3 padding gives FIPS 202 SHA3-256", arguments: sha3)
    func sha3Padding(kat: KAT) {
        #expect(Keccak256.sponge(kat.message, domainSuffix: 0x06) == kat.digest)
    }

    @Test("Keccak-256 is not SHA3-256: the empty message differs")
    func paddingDiffers() throws {
        let emptyKeccak = try #require(Self.keccak.first { $0.bits == 0 })
        let emptySHA3 = try #require(Self.sha3.first { $0.bits == 0 })
        #expect(emptyKeccak.digest != emptySHA3.digest)
        #expect(Keccak256.hash([]) == emptyKeccak.digest)
    }

    /// go-ethereum `crypto/crypto_test.go` TestKeccak256Hash ("abc") and `core/types/hashes.go` EmptyCodeHash
    /// (keccak256 of nothing), the two values every Ethereum implementation checks first.
    @Test("Keccak-256 of \"abc\" and of the empty string are go-ethereum's")
    func goEthereumValues() {
        #expect(
            Keccak256.hash(Array("abc".utf8))
                == TestHex.bytes("4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"))
        #expect(
            Keccak256.hash([UInt8]())
                == TestHex.bytes("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"))
    }

    @Test("Messages across the 136-byte block boundary hash as the KAT says (135, 136, 137 bytes present)")
    func blockBoundaries() {
        let lengths = Set(Self.keccak.map { $0.bits / 8 })
        #expect(lengths.isSuperset(of: [135, 136, 137]) || lengths.contains { $0 > 136 })
    }
}
