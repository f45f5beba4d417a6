internal import CSodium

/// SHA-256 (FIPS 180-4) on libsodium, incremental or one-shot.
public struct SHA256: Sendable {
    /// The digest size in bytes.
    public static let byteCount = 32
    private var state = crypto_hash_sha256_state()

    /// Starts a new hash.
    public init() {
        Sodium.ensure()
        let code = crypto_hash_sha256_init(&state)
        precondition(code == 0, "crypto_hash_sha256_init failed (\(code))")
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Absorbs the bytes of `buffer`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(buffer.count))
    }

    /// Absorbs secret bytes without copying them out of secret memory.
    public mutating func update(_ secret: SecretBytes) {
        secret.withUnsafeBytes { update($0) }
    }

    /// The digest of everything absorbed.
    public func finalize() -> [UInt8] {
        var copy = state
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        _ = crypto_hash_sha256_final(&copy, &out)
        return out
    }

    /// SHA-256 of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// SHA-256 of SHA-256 of `bytes` (Bitcoin's hash256: txids, block hashes, base58check checksums).
    public static func doubleHash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        hash(hash(bytes))
    }
}
