internal import CSodium
import Synchronization

/// Bytes of secret material (entropy, seeds, private keys, passwords) in memory that libsodium allocates with guard
/// pages, locks against swapping where the system allows, and zeroes when released.
///
/// Secrets of up to 128 bytes (keys, chain codes, HMAC outputs, libsecp256k1 key pairs) take a slot of a `SecretArena`: 64 KiB blocks from
/// `sodium_malloc`, so locked and fenced by guard pages as a block, handed out and zeroed on release without a system
/// call. One `sodium_malloc` per secret cost some 8 system calls (mmap, mprotect ×4, mlock, madvise) and as many to
/// free; signing one input derives four such secrets, and the 1,445-input benchmark spent more time in those calls
/// than in the signatures (issue 19, docs/benchmarks.md).
///
/// Secrets never sit in `Data`, `[UInt8]` or `String` longer than a call (docs/architecture.md rule R6). The description is redacted,
/// comparison is constant-time, and there is deliberately no `Codable` conformance.
public final class SecretBytes: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer
    /// The number of secret bytes.
    public let count: Int

    /// Allocates `count` zeroed secret bytes.
    public init(count: Int) {
        precondition(count >= 0, "negative SecretBytes size")
        Sodium.ensure()
        if count <= SecretArena.slotSize {
            self.base = SecretArena.shared.allocate()
        } else {
            guard let pointer = sodium_malloc(count) else {
                preconditionFailure("sodium_malloc(\(count)) failed: out of memory")
            }
            sodium_memzero(pointer, count)
            self.base = pointer
        }
        self.count = count
    }

    /// Copies `bytes` into secret memory.
    ///
    /// The caller should wipe its own copy (see `SecretBytes.wipe(_:)`).
    public convenience init(copying bytes: some Collection<UInt8>) {
        self.init(count: bytes.count)
        let target = base.assumingMemoryBound(to: UInt8.self)
        for (offset, byte) in bytes.enumerated() { target[offset] = byte }
    }

    /// Fills `count` secret bytes from the operating system's random source.
    public convenience init(randomCount count: Int) {
        self.init(count: count)
        randombytes_buf(base, count)
    }

    /// Takes the UTF-8 bytes of `string` (a password or passphrase, NFKD-normalised by the caller where required).
    public convenience init(utf8 string: String) {
        var utf8 = Array(string.utf8)
        self.init(copying: utf8)
        SecretBytes.wipe(&utf8)
    }

    deinit {
        if count <= SecretArena.slotSize {
            SecretArena.shared.release(base)
        } else {
            sodium_free(base)
        }
    }

    /// Calls `body` with read access to the secret bytes; the pointer must not escape.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Calls `body` with write access to the secret bytes; the pointer must not escape.
    public func withUnsafeMutableBytes<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    /// Calls `body` with a typed pointer to the bytes (never null, even for zero bytes) and their count.
    package func withBytePointer<R, E: Error>(_ body: (UnsafePointer<UInt8>, Int) throws(E) -> R) throws(E) -> R {
        try body(UnsafePointer(base.assumingMemoryBound(to: UInt8.self)), count)
    }

    /// Calls `body` with a typed mutable pointer to the bytes (never null) and their count.
    package func withMutableBytePointer<R, E: Error>(
        _ body: (UnsafeMutablePointer<UInt8>, Int) throws(E) -> R
    ) throws(E) -> R {
        try body(base.assumingMemoryBound(to: UInt8.self), count)
    }

    /// A new `SecretBytes` holding the bytes in `range`.
    public func slice(_ range: Range<Int>) -> SecretBytes {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "SecretBytes slice out of range")
        let out = SecretBytes(count: range.count)
        out.withUnsafeMutableBytes { target in
            guard let dst = target.baseAddress else { return }
            dst.copyMemory(from: base + range.lowerBound, byteCount: range.count)
        }
        return out
    }

    /// A new `SecretBytes` holding these bytes followed by `other`'s.
    public func appending(_ other: SecretBytes) -> SecretBytes {
        let out = SecretBytes(count: count + other.count)
        out.withUnsafeMutableBytes { target in
            guard let dst = target.baseAddress else { return }
            dst.copyMemory(from: base, byteCount: count)
            other.withUnsafeBytes { source in
                if let src = source.baseAddress { (dst + count).copyMemory(from: src, byteCount: other.count) }
            }
        }
        return out
    }

    /// Compares in constant time (for equal lengths).
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        if count == 0 { return true }
        return other.withUnsafeBytes { sodium_memcmp(base, $0.baseAddress, count) == 0 }
    }

    /// Copies the secret into an ordinary array.
    ///
    /// Use only to hand bytes to an API that needs them for one call, and
    /// wipe the array afterwards with `SecretBytes.wipe(_:)`.
    public func unsafeCopyToArray() -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Overwrites an ordinary array that briefly held secret bytes.
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let pointer = buffer.baseAddress { sodium_memzero(pointer, buffer.count) }
        }
        bytes.removeAll()
    }
}

extension SecretBytes: Equatable {
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool { lhs.constantTimeEquals(rhs) }
}

extension SecretBytes: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "SecretBytes(\(count) bytes, <redacted>)" }
    public var debugDescription: String { description }
}

/// Fixed 128-byte slots for small secrets (a 96-byte libsecp256k1 key pair is the largest made per input), carved from 64 KiB `sodium_malloc` blocks.
///
/// Guard pages fence each block and it is locked against swapping where the system allows. A released slot is zeroed
/// before it is reused; blocks live as long as the process.
final class SecretArena: Sendable {
    static let slotSize = 128
    static let blockSize = 64 * 1024
    static let shared = SecretArena()

    private struct State {
        var free: [UInt] = []  // slot addresses
    }

    private let state = Mutex(State())

    /// A zeroed slot.
    func allocate() -> UnsafeMutableRawPointer {
        let address = state.withLock { state in
            if state.free.isEmpty {
                guard let block = sodium_malloc(Self.blockSize) else {
                    preconditionFailure("sodium_malloc(\(Self.blockSize)) failed: out of memory")
                }
                sodium_memzero(block, Self.blockSize)
                let slots = Self.blockSize / Self.slotSize
                state.free.reserveCapacity(state.free.count + slots)
                let start = UInt(bitPattern: block)
                for slot in (0..<slots).reversed() { state.free.append(start + UInt(slot * Self.slotSize)) }
            }
            return state.free.removeLast()
        }
        guard let slot = UnsafeMutableRawPointer(bitPattern: address) else { preconditionFailure("null secret slot") }
        return slot
    }

    /// Zeroes `slot` and returns it to the free list.
    func release(_ slot: UnsafeMutableRawPointer) {
        sodium_memzero(slot, Self.slotSize)
        let address = UInt(bitPattern: slot)
        state.withLock { $0.free.append(address) }
    }
}
