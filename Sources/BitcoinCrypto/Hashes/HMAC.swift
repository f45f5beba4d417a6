internal import CSodium

/// HMAC-SHA-256 (RFC 2104) on libsodium, with keys of any length.
public struct HMACSHA256: Sendable {
    /// The tag size in bytes.
    public static let byteCount = 32
    private var state = crypto_auth_hmacsha256_state()

    /// Starts an HMAC with `key` (any length).
    public init(key: some Sequence<UInt8>) {
        Sodium.ensure()
        let keyBytes = Array(key)
        let code = crypto_auth_hmacsha256_init(&state, keyBytes, keyBytes.count)
        precondition(code == 0, "crypto_auth_hmacsha256_init failed (\(code))")
    }

    /// Starts an HMAC with a secret `key`, such as a password in PBKDF2.
    public init(key: SecretBytes) {
        Sodium.ensure()
        let code = key.withBytePointer { pointer, count in crypto_auth_hmacsha256_init(&state, pointer, count) }
        precondition(code == 0, "crypto_auth_hmacsha256_init failed (\(code))")
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        _ = crypto_auth_hmacsha256_update(&state, array, UInt64(array.count))
    }

    /// Absorbs the bytes of `buffer`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = crypto_auth_hmacsha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(buffer.count))
    }

    /// The tag of everything absorbed.
    public func finalize() -> [UInt8] {
        var copy = state
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        _ = crypto_auth_hmacsha256_final(&copy, &out)
        return out
    }

    /// Finalises into `output` (32 bytes), for loops such as PBKDF2 that keep intermediate values in secret memory.
    func finalize(into output: UnsafeMutablePointer<UInt8>) {
        var copy = state
        _ = crypto_auth_hmacsha256_final(&copy, output)
        sodium_memzero(&copy, MemoryLayout<crypto_auth_hmacsha256_state>.size)
    }

    /// Zeroes the state (the key schedule derived from the key and what was absorbed); the HMAC is unusable after.
    public mutating func wipe() {
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size)
    }

    /// HMAC-SHA-256 of `message` under `key`.
    public static func authenticate(key: some Sequence<UInt8>, message: some Sequence<UInt8>) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        mac.update(message)
        return mac.finalize()
    }
}

/// HMAC-SHA-512 (RFC 2104) on libsodium; the primitive of BIP32 and of BIP39's PBKDF2.
public struct HMACSHA512: Sendable {
    /// The tag size in bytes.
    public static let byteCount = 64
    private var state = crypto_auth_hmacsha512_state()

    /// Starts an HMAC with a public `key` (any length), such as BIP32's "Bitcoin seed" or a chain code.
    public init(key: some Sequence<UInt8>) {
        Sodium.ensure()
        var keyBytes = Array(key)
        let code = crypto_auth_hmacsha512_init(&state, keyBytes, keyBytes.count)
        precondition(code == 0, "crypto_auth_hmacsha512_init failed (\(code))")
        SecretBytes.wipe(&keyBytes)
    }

    /// Starts an HMAC with a secret `key`, such as a password in PBKDF2.
    public init(key: SecretBytes) {
        Sodium.ensure()
        let code = key.withBytePointer { pointer, count in crypto_auth_hmacsha512_init(&state, pointer, count) }
        precondition(code == 0, "crypto_auth_hmacsha512_init failed (\(code))")
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Absorbs the bytes of `buffer`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = crypto_auth_hmacsha512_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(buffer.count))
    }

    /// Absorbs secret bytes without copying them out of secret memory.
    public mutating func update(_ secret: SecretBytes) {
        secret.withUnsafeBytes { update($0) }
    }

    /// The tag, in secret memory (BIP32 child keys and chain codes come from it).
    public func finalizeSecret() -> SecretBytes {
        var copy = state
        let out = SecretBytes(count: Self.byteCount)
        out.withMutableBytePointer { pointer, _ in _ = crypto_auth_hmacsha512_final(&copy, pointer) }
        sodium_memzero(&copy, MemoryLayout<crypto_auth_hmacsha512_state>.size)
        return out
    }

    /// The tag of everything absorbed, in an ordinary array (for non-secret uses).
    public func finalize() -> [UInt8] {
        var copy = state
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        _ = crypto_auth_hmacsha512_final(&copy, &out)
        return out
    }

    /// Finalises into `output` (64 bytes), for loops such as PBKDF2 that keep intermediate values in secret memory.
    func finalize(into output: UnsafeMutablePointer<UInt8>) {
        var copy = state
        _ = crypto_auth_hmacsha512_final(&copy, output)
        sodium_memzero(&copy, MemoryLayout<crypto_auth_hmacsha512_state>.size)
    }

    /// Zeroes the state (the key schedule derived from the key and what was absorbed); the HMAC is unusable after.
    public mutating func wipe() {
        sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha512_state>.size)
    }

    /// HMAC-SHA-512 of `message` under `key`.
    public static func authenticate(key: some Sequence<UInt8>, message: some Sequence<UInt8>) -> [UInt8] {
        var mac = HMACSHA512(key: key)
        mac.update(message)
        return mac.finalize()
    }
}
