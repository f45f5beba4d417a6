// CNettle: the nettle headers Airlock uses (AES-128-CTR for Ethereum keystore v3 files, AES-256-CTR for BIP129 BSMS
// records, the Keccak-f[1600] permutation under Keccak-256, SHA-256), imported by exactly one Swift module, BitcoinCrypto
// (docs/architecture.md rule R2).
#pragma once
#include <nettle/aes.h>
#include <nettle/ctr.h>
#include <nettle/sha2.h>
#include <nettle/sha3.h>
#include <string.h>

// AES-128-CTR over `length` bytes with a 16-byte big-endian counter block (incremented in place), the way keystore v3
// uses it. nettle's ctr_crypt takes the block cipher as a generic function pointer, a cast Swift cannot spell; the
// key schedule is wiped before returning. (nettle's key setup and ctr_crypt return nothing: there is no code to check.)
static inline void airlock_aes128_ctr(const uint8_t *key, uint8_t *counter, size_t length, uint8_t *dst,
                                      const uint8_t *src) {
    struct aes128_ctx ctx;
    aes128_set_encrypt_key(&ctx, key);
    ctr_crypt(&ctx, (nettle_cipher_func *)aes128_encrypt, AES_BLOCK_SIZE, counter, length, dst, src);
    explicit_bzero(&ctx, sizeof ctx);
}

// AES-256-CTR, the same way (BIP129: the 16-byte counter block incremented as one 128-bit big-endian number).
static inline void airlock_aes256_ctr(const uint8_t *key, uint8_t *counter, size_t length, uint8_t *dst,
                                      const uint8_t *src) {
    struct aes256_ctx ctx;
    aes256_set_encrypt_key(&ctx, key);
    ctr_crypt(&ctx, (nettle_cipher_func *)aes256_encrypt, AES_BLOCK_SIZE, counter, length, dst, src);
    explicit_bzero(&ctx, sizeof ctx);
}
