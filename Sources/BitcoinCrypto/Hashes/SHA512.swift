internal import CSodium

/// SHA-512 (FIPS 180-4) on libsodium.
public struct SHA512: Sendable {
    /// The digest size in bytes.
    public static let byteCount = 64
    private var state = crypto_hash_sha512_state()

    /// Starts a new hash.
    public init() {
        Sodium.ensure()
        let code = crypto_hash_sha512_init(&state)
        precondition(code == 0, "crypto_hash_sha512_init failed (\(code))")
    }

    /// Absorbs `bytes`.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Absorbs the bytes of `buffer`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = crypto_hash_sha512_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(buffer.count))
    }

    /// The digest of everything absorbed.
    public func finalize() -> [UInt8] {
        var copy = state
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        _ = crypto_hash_sha512_final(&copy, &out)
        return out
    }

    /// SHA-512 of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA512()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
