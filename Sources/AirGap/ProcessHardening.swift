internal import CAirGap
import Foundation
import Synchronization

/// What the signer does to its own process before anything else (docs/architecture.md section 5).
///
/// It closes the descriptors it inherited above 2 and turns core dumps off (`PR_SET_DUMPABLE` 0 and `RLIMIT_CORE`
/// 0). The seccomp filter follows.
public enum ProcessHardening {
    /// The descriptors closed by `harden()` in this process (for `selftest`).
    static let closed = Mutex<[Int32]>([])

    /// Closes inherited descriptors above 2, makes the process non-dumpable and sets RLIMIT_CORE to 0.
    ///
    /// - Returns: the descriptors closed.
    /// - Throws: `AirGapError.hardeningFailed` naming the step that failed.
    @discardableResult
    /// Makes this hidden child of the signer die with its parent (SIGKILL on the parent's exit), so a probe or decoder
    /// child can never be left behind holding its parent's pipes; `parent` is the parent's pid at start.
    public static func dieWithParent(_ parent: Int32) {
        _ = airlock_die_with_parent(parent)
    }

    public static func harden() throws(AirGapError) -> [Int32] {
        var buffer = [Int32](repeating: -1, count: 1024)
        let count = buffer.withUnsafeMutableBufferPointer {
            airlock_close_inherited_descriptors($0.baseAddress, Int32($0.count))
        }
        guard count >= 0 else { throw .hardeningFailed(step: "close inherited descriptors", errno: airlock_errno()) }
        let list = Array(buffer.prefix(Int(count)))
        closed.withLock { $0 = list }
        guard airlock_set_not_dumpable() == 0 else {
            throw .hardeningFailed(step: "prctl(PR_SET_DUMPABLE, 0)", errno: airlock_errno())
        }
        guard airlock_disable_core_limit() == 0 else {
            throw .hardeningFailed(step: "setrlimit(RLIMIT_CORE, 0)", errno: airlock_errno())
        }
        return list
    }

    /// The descriptors `harden()` closed in this process.
    public static var closedAtStart: [Int32] { closed.withLock { $0 } }

    /// Whether the process may dump core / be attached to (`PR_GET_DUMPABLE` is not 0).
    public static var isDumpable: Bool { airlock_get_dumpable() != 0 }

    /// The soft RLIMIT_CORE in bytes, nil when unreadable.
    public static var coreLimit: Int64? {
        let value = airlock_core_limit()
        return value < 0 ? nil : Int64(value)
    }

    /// One open descriptor and what it refers to (the /proc/self/fd link: a path, `pipe:[…]`, `anon_inode:[…]`).
    public struct OpenDescriptor: Codable, Sendable, Equatable {
        public let fd: Int32
        public let target: String
    }

    /// The descriptors open now, from /proc/self/fd (the listing's own descriptor excepted), sorted.
    public static func openDescriptors() -> [OpenDescriptor] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return names.compactMap { Int32($0) }.sorted().compactMap { fd in
            // The listing's own descriptor is closed by now: fcntl tells.
            guard fcntl(fd, F_GETFD) != -1 else { return nil }
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "?"
            return OpenDescriptor(fd: fd, target: target)
        }
    }
}
