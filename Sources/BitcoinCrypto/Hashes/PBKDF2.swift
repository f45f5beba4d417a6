internal import CSodium

/// PBKDF2 (RFC 8018) with HMAC-SHA-512, as BIP39 uses it, and with HMAC-SHA-256, as SLIP-39's Feistel rounds use it.
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
            password: password, salt: SecretBytes(copying: saltBytes), iterations: iterations, keyLength: keyLength)
    }

    /// PBKDF2-HMAC-SHA-512 with a secret salt (BIP39's salt holds the passphrase).
    public static func hmacSHA512(
        password: SecretBytes,
        salt: SecretBytes,
        iterations: Int,
        keyLength: Int
    ) -> SecretBytes {
        derive(
            keyed: HMACSHA512(key: password), blockSize: HMACSHA512.byteCount, salt: salt,
            iterations: iterations, keyLength: keyLength,
            update: { $0.update($1) }, finalize: { $0.finalize(into: $1) }, wipe: { $0.wipe() })
    }

    /// Derives `keyLength` bytes from `password` and `salt` with `iterations` rounds of HMAC-SHA-256.
    ///
    /// - SeeAlso: https://www.rfc-editor.org/rfc/rfc8018#section-5.2
    public static func hmacSHA256(
        password: SecretBytes,
        salt: some Sequence<UInt8>,
        iterations: Int,
        keyLength: Int
    ) -> SecretBytes {
        var saltBytes = Array(salt)
        defer { SecretBytes.wipe(&saltBytes) }
        return derive(
            keyed: HMACSHA256(key: password), blockSize: HMACSHA256.byteCount, salt: SecretBytes(copying: saltBytes),
            iterations: iterations, keyLength: keyLength,
            update: { $0.update($1) }, finalize: { $0.finalize(into: $1) }, wipe: { $0.wipe() })
    }

    /// The PBKDF2 loop over any HMAC: `keyed` is the MAC with its key schedule done, copied for every round; every
    /// copy (and `keyed` itself) is wiped after use.
    private static func derive<MAC>(
        keyed: MAC,
        blockSize: Int,
        salt: SecretBytes,
        iterations: Int,
        keyLength: Int,
        update: (inout MAC, UnsafeRawBufferPointer) -> Void,
        finalize: (MAC, UnsafeMutablePointer<UInt8>) -> Void,
        wipe: (inout MAC) -> Void
    ) -> SecretBytes {
        precondition(iterations >= 1 && keyLength >= 0, "invalid PBKDF2 parameters")
        var keyed = keyed
        defer { wipe(&keyed) }
        let output = SecretBytes(count: keyLength)
        let scratch = SecretBytes(count: 2 * blockSize)  // U and T
        let blockCount = (keyLength + blockSize - 1) / blockSize
        scratch.withUnsafeMutableBytes { work in
            guard let base = work.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            let u = base
            let t = base + blockSize
            for block in 0..<blockCount {
                let index = UInt32(block + 1)
                var mac = keyed
                salt.withUnsafeBytes { update(&mac, $0) }
                let counter: [UInt8] = [
                    UInt8(index >> 24), UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF),
                ]
                counter.withUnsafeBytes { update(&mac, $0) }
                finalize(mac, u)
                wipe(&mac)
                t.update(from: u, count: blockSize)
                if iterations > 1 {
                    for _ in 1..<iterations {
                        var round = keyed
                        update(&round, UnsafeRawBufferPointer(start: u, count: blockSize))
                        finalize(round, u)
                        wipe(&round)
                        for i in 0..<blockSize { t[i] ^= u[i] }
                    }
                }
                let offset = block * blockSize
                let take = Swift.min(blockSize, keyLength - offset)
                output.withUnsafeMutableBytes { out in
                    out.baseAddress.map { ($0 + offset).copyMemory(from: t, byteCount: take) }
                }
            }
        }
        return output
    }
}
