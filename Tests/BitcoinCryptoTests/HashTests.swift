import BitcoinCrypto
import CSodium
import TestSupport
import Testing

/// Known answers from the standards: FIPS 180-2 examples, the RIPEMD-160 reference page, RFC 4231, BIP39.
@Suite("Hash known answers")
struct HashTests {
    @Test("SHA-256 (FIPS 180-2 appendix B)")
    func sha256() {
        #expect(
            SHA256.hash(Array("abc".utf8)).hexString
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hash([]).hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SHA256.hash(long).hexString == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        var incremental = SHA256()
        for byte in long { incremental.update([byte]) }
        #expect(incremental.finalize() == SHA256.hash(long))
    }

    @Test("SHA-256 on nettle equals libsodium's, every length 0-300 and split points, one shot and incremental")
    func sha256AgainstLibsodium() {
        _ = sodium_init()
        for length in 0...300 {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ length) }
            var expected = [UInt8](repeating: 0, count: 32)
            _ = crypto_hash_sha256(&expected, message, UInt64(message.count))
            #expect(SHA256.hash(message) == expected, "length \(length)")
            let split = length * 7 / 11
            var incremental = SHA256()
            incremental.update(message[..<split])
            incremental.update(message[split...])
            #expect(incremental.finalize() == expected, "length \(length), split at \(split)")
            var twice = [UInt8](repeating: 0, count: 32)
            _ = crypto_hash_sha256(&twice, expected, 32)
            #expect(SHA256.doubleHash(message) == twice, "double, length \(length)")
        }
        // finalize leaves the state as it was: more bytes may follow.
        var running = SHA256()
        running.update([1, 2, 3])
        _ = running.finalize()
        running.update([4])
        #expect(running.finalize() == SHA256.hash([1, 2, 3, 4]))
    }

    @Test("SHA-512 (FIPS 180-2 appendix C)")
    func sha512() {
        #expect(
            SHA512.hash(Array("abc".utf8)).hexString
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    }

    @Test(
        "RIPEMD-160 reference strings",
        arguments: [
            ("", "9c1185a5c5e9fc54612808977ee8f548b2258d31"),
            ("a", "0bdc9d2d256b3ee9daae347be6f4dc835a467ffe"),
            ("abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"),
            ("message digest", "5d0689ef49d2fae572b881b123a85ffa21595f36"),
            ("abcdefghijklmnopqrstuvwxyz", "f71c27109c692c1b56bbdceb5b9d2865b3708dbc"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "12a053384a9c0c88e405a06c27dcf49ada62eb2b"),
            (
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                "b0e20b6e3116640286ed3a87a5713079b21f5189"
            ),
            (String(repeating: "1234567890", count: 8), "9b752e45573d4b39f4dbd3323cab82bf63326bfb"),
        ])
    func ripemd160(_ input: String, _ digest: String) {
        #expect(RIPEMD160.hash(Array(input.utf8)).hexString == digest)
    }

    @Test("RIPEMD-160 of a million 'a'")
    func ripemd160Million() {
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(RIPEMD160.hash(million).hexString == "52783243c1697bdbe16d37f97f68f08325dc1528")
    }

    @Test("HASH160 of the generator point's compressed key")
    func hash160() {
        let g = TestHex.bytes("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        #expect(Hash160.hash(g).hexString == "751e76e8199196d454941c45d1b3a323f1433bd6")
    }

    @Test("HMAC-SHA-256/512, RFC 4231 test cases 1 and 2")
    func hmac() {
        let key1 = [UInt8](repeating: 0x0B, count: 20)
        let data1 = Array("Hi There".utf8)
        #expect(
            HMACSHA256.authenticate(key: key1, message: data1).hexString
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            HMACSHA512.authenticate(key: key1, message: data1).hexString
                == "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde"
                + "daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854")
        let key2 = Array("Jefe".utf8)
        let data2 = Array("what do ya want for nothing?".utf8)
        #expect(
            HMACSHA256.authenticate(key: key2, message: data2).hexString
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            HMACSHA512.authenticate(key: key2, message: data2).hexString
                == "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea250554"
                + "9758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")
    }

    struct SeedCase: CustomTestStringConvertible, Sendable {
        let mnemonic: String
        let seed: String
        var testDescription: String { String(mnemonic.prefix(32)) + "…" }
    }

    static func seedCases() throws -> [SeedCase] {
        try Vectors.json("bip39/vectors.json", as: [String: [[String]]].self)["english", default: []]
            .map { SeedCase(mnemonic: $0[1], seed: $0[2]) }
    }

    /// BIP39's seed is PBKDF2-HMAC-SHA512(mnemonic, "mnemonic" ‖ passphrase, 2048, 64); passphrase "TREZOR".
    @Test("PBKDF2-HMAC-SHA512 gives the BIP39 seeds (Tests/Vectors/bip39/vectors.json)", arguments: try seedCases())
    func pbkdf2(_ vector: SeedCase) {
        let seed = PBKDF2.hmacSHA512(
            password: SecretBytes(utf8: vector.mnemonic), salt: Array("mnemonicTREZOR".utf8), iterations: 2048,
            keyLength: 64)
        #expect(seed.unsafeCopyToArray().hexString == vector.seed)
    }

    @Test("Tagged hash is SHA-256(SHA-256(tag) ‖ SHA-256(tag) ‖ message)")
    func tagged() {
        let tag = SHA256.hash(Array("TapLeaf".utf8))
        #expect(TaggedHash.tapLeaf.hash([1, 2, 3]) == SHA256.hash(tag + tag + [1, 2, 3]))
    }
}

extension Array where Element == UInt8 {
    var hexString: String { TestHex.string(self) }
}
