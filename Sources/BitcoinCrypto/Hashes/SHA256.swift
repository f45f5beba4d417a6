internal import CNettle

/// SHA-256 (FIPS 180-4) on nettle, incremental or one-shot.
///
/// nettle chooses its compression function when it loads: the processor's SHA extensions where it has them, its
/// assembly otherwise. libsodium's portable C, used before, took about 3.5 times as long for a txid or a merkle node
/// (issue 33; docs/benchmarks.md, "Item 3: the client's CPU, second pass").
public struct SHA256: Sendable {
    /// The digest size in bytes.
    public static let byteCount = 32
    private var state = sha256_ctx()

    /// Starts a new hash.
    public init() {
        nettle_sha256_init(&state)
    }

    /// Absorbs `bytes`.
    ///
    /// Inlinable, so a caller's array is absorbed in place without a generic call per update (a sync hashes some
    /// 30,000 txids, merkle nodes and scripts).
    @inlinable
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Absorbs the bytes of `buffer`.
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        nettle_sha256_update(&state, buffer.count, base.assumingMemoryBound(to: UInt8.self))
    }

    /// Absorbs secret bytes without copying them out of secret memory.
    public mutating func update(_ secret: SecretBytes) {
        secret.withUnsafeBytes { update($0) }
    }

    /// The digest of everything absorbed.
    public func finalize() -> [UInt8] {
        var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &digest) { raw in
            finalize(into: raw)
            // Copied into an array made by appending: `[UInt8](repeating:count:)` looks the array's storage type up
            // at run time, a third of the cost of a 32-byte array (issue 33).
            var out: [UInt8] = []
            out.reserveCapacity(Self.byteCount)
            out.append(contentsOf: raw.bindMemory(to: UInt8.self))
            return out
        }
    }

    /// Writes the digest of everything absorbed into the first 32 bytes of `out`.
    public func finalize(into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= Self.byteCount, "a SHA-256 digest needs 32 bytes")
        var copy = state
        nettle_sha256_digest(
            &copy, Self.byteCount, out.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self))
    }

    /// SHA-256 of `bytes`.
    @inlinable
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// SHA-256 of SHA-256 of `bytes` (Bitcoin's hash256: txids, block hashes, base58check checksums).
    @inlinable
    public static func doubleHash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var first = SHA256()
        first.update(bytes)
        return first.finalizeDoubled()
    }

    /// The SHA-256 of this hash's digest (hash256 of what was fed): the first digest stays on the stack, only the
    /// second is made an array.
    public func finalizeDoubled() -> [UInt8] {
        var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &digest) { raw in
            finalize(into: raw)
            var second = SHA256()
            second.update(UnsafeRawBufferPointer(raw))
            return second.finalize()
        }
    }
}
