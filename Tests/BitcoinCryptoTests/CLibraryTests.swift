import CSecp256k1
import CSodium
import Testing

/// The C libraries exercised directly, apart from the Swift API (docs/architecture.md rule R10).
@Suite("C libraries: libsecp256k1 and libsodium")
struct CLibraryTests {
    @Test("libsecp256k1: a context derives the generator point from the secret key 1")
    func generator() throws {
        let context = try #require(secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)))
        defer { secp256k1_context_destroy(context) }
        let seckey: [UInt8] = [UInt8](repeating: 0, count: 31) + [1]
        #expect(secp256k1_ec_seckey_verify(context, seckey) == 1)
        #expect(secp256k1_ec_seckey_verify(context, [UInt8](repeating: 0, count: 32)) == 0)
        var pubkey = secp256k1_pubkey()
        #expect(secp256k1_ec_pubkey_create(context, &pubkey, seckey) == 1)
        var out = [UInt8](repeating: 0, count: 33)
        var length = 33
        #expect(secp256k1_ec_pubkey_serialize(context, &out, &length, &pubkey, UInt32(SECP256K1_EC_COMPRESSED)) == 1)
        #expect(length == 33)
        #expect(hex(out) == "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
    }

    @Test("libsodium: initialises and hashes 'abc' with SHA-256")
    func sodiumSHA256() {
        #expect(sodium_init() >= 0)
        var out = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        let message = Array("abc".utf8)
        #expect(crypto_hash_sha256(&out, message, UInt64(message.count)) == 0)
        #expect(hex(out) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}
