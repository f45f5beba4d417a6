import BitcoinCrypto
import TestSupport
import Testing

/// The ciphers and the permutation Airlock takes from nettle, through BitcoinCrypto's Swift API.
@Suite("nettle: AES-256-CTR and the Keccak sponge")
struct NettleTests {
    /// NIST SP 800-38A (2001), Appendix F.5.5 CTR-AES256.Encrypt.
    ///
    /// Key, initial counter block, four plaintext and ciphertext blocks. The second block's counter (…feff + 1 = …ff00) carries across a byte.
    /// - SeeAlso: https://doi.org/10.6028/NIST.SP.800-38A
    static let key = TestHex.bytes("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
    static let counter = TestHex.bytes("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
    static let plaintext = TestHex.bytes(
        "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
            + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
    static let ciphertext = TestHex.bytes(
        "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
            + "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6")

    @Test("AES-256-CTR encrypts SP 800-38A F.5.5 and decrypts it back")
    func aes256Vector() throws {
        let key = SecretBytes(copying: Self.key)
        #expect(try AES256CTR.apply(key: key, iv: Self.counter, to: Self.plaintext) == Self.ciphertext)
        #expect(try AES256CTR.apply(key: key, iv: Self.counter, to: Self.ciphertext) == Self.plaintext)
    }

    @Test("AES-256-CTR on a partial last block gives the keystream's prefix; empty input gives empty output")
    func aes256Partial() throws {
        let key = SecretBytes(copying: Self.key)
        let prefix = Array(Self.plaintext.prefix(37))
        #expect(try AES256CTR.apply(key: key, iv: Self.counter, to: prefix) == Array(Self.ciphertext.prefix(37)))
        #expect(try AES256CTR.apply(key: key, iv: Self.counter, to: []) == [])
    }

    @Test("AES-256-CTR refuses a 16-byte key and a 12-byte IV; a changed key gives another ciphertext")
    func aes256Lengths() throws {
        #expect(throws: KeyError.self) {
            try AES256CTR.apply(key: SecretBytes(copying: Self.key.prefix(16)), iv: Self.counter, to: Self.plaintext)
        }
        #expect(throws: KeyError.self) {
            try AES256CTR.apply(
                key: SecretBytes(copying: Self.key), iv: Array(Self.counter.prefix(12)), to: Self.plaintext)
        }
        var other = Self.key
        other[31] ^= 1
        #expect(
            try AES256CTR.apply(key: SecretBytes(copying: other), iv: Self.counter, to: Self.plaintext)
                != Self.ciphertext)
    }

    /// Keccak-256 of "" and "abc" from go-ethereum.
    ///
    /// `core/types/hashes.go` (EmptyCodeHash = keccak256(nil)) and `crypto/crypto_test.go` (TestKeccak256Hash). The KAT files are run through the sponge in EthereumTests.
    @Test("The sponge with 0x01 padding gives Keccak-256 of \"\" and \"abc\"; with 0x06 something else")
    func keccakSponge() {
        #expect(
            KeccakSponge.hash256([], domainSuffix: 0x01)
                == TestHex.bytes("c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"))
        #expect(
            KeccakSponge.hash256(Array("abc".utf8), domainSuffix: 0x01)
                == TestHex.bytes("4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"))
        #expect(
            KeccakSponge.hash256(Array("abc".utf8), domainSuffix: 0x06)
                != TestHex.bytes("4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"))
    }
}
