internal import CSodium

/// PBKDF2 with HMAC-SHA-512 (RFC 8018), as BIP39 uses it to turn a mnemonic into a seed.
public enum PBKDF2 {
    /// Derives `keyLength` bytes from `password` and `salt` with `iterations` rounds of HMAC-SHA-512.
    ///
    /// The HMAC key schedule is computed once and copied per round; intermediate blocks stay in secret memory, and
    /// every HMAC state (derived from the password) is zeroed after use.
    /// - SeeAlso: https://www.rfc-editor.org/rfc/rfc8018#section-5.2
    public static func hmacSHA512(
        password: SecretBytes,
        salt: some Sequence<UInt8>,
        iterations: Int,
        keyLength: Int
    ) -> SecretBytes {
        var saltBytes = Array(salt)
        defer { SecretBytes.wipe(&saltBytes) }
        return hmacSHA512(
            password: password, salt: SecretBytes(copying: saltBytes), iterations: iterations,
            keyLength: keyLength)
    }

    /// PBKDF2 with a secret salt (BIP39's salt holds the passphrase).
    public static func hmacSHA512(
        password: SecretBytes,
        salt: SecretBytes,
        iterations: Int,
        keyLength: Int
    ) -> SecretBytes {
        precondition(iterations >= 1 && keyLength >= 0, "invalid PBKDF2 parameters")
        var keyed = HMACSHA512(key: password)
        defer { keyed.wipe() }
        let saltBytes = salt
        let output = SecretBytes(count: keyLength)
        let scratch = SecretBytes(count: 2 * HMACSHA512.byteCount)  // U and T
        let blockCount = (keyLength + HMACSHA512.byteCount - 1) / HMACSHA512.byteCount
        scratch.withUnsafeMutableBytes { work in
            guard let base = work.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let u = base
            let t = base + HMACSHA512.byteCount
            for block in 0..<blockCount {
                let index = UInt32(block + 1)
                var mac = keyed
                mac.update(saltBytes)
                mac.update([
                    UInt8(index >> 24), UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF),
                ])
                mac.finalize(into: u)
                mac.wipe()
                t.update(from: u, count: HMACSHA512.byteCount)
                if iterations > 1 {
                    for _ in 1..<iterations {
                        var round = keyed
                        round.update(UnsafeRawBufferPointer(start: u, count: HMACSHA512.byteCount))
                        round.finalize(into: u)
                        round.wipe()
                        for i in 0..<HMACSHA512.byteCount { t[i] ^= u[i] }
                    }
                }
                let offset = block * HMACSHA512.byteCount
                let take = Swift.min(HMACSHA512.byteCount, keyLength - offset)
                output.withUnsafeMutableBytes { out in
                    out.baseAddress.map { ($0 + offset).copyMemory(from: t, byteCount: take) }
                }
            }
        }
        return output
    }
}
