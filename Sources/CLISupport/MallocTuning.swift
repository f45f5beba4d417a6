#if canImport(Glibc)
import CMalloc
#endif

/// glibc's allocator set for a process that lives tens of milliseconds (issue 19, docs/benchmarks.md).
///
/// By default each thread that allocates gets an arena of its own, grown a few pages at a time with one `mprotect`
/// each (430 calls in one `send` over 10,000 UTXOs), and every allocation of 128 KiB or more is a fresh `mmap` whose
/// pages fault in again after each `munmap`. Here every thread shares the main heap, which grows 16 MiB at a time,
/// keeps what is freed for the next allocation, and is not trimmed: the memory goes back to the system when the
/// process exits, a moment later.
public enum MallocTuning {
    /// Call first thing in `main`, before other threads allocate.
    public static func forShortProcess() {
        #if canImport(Glibc)
        _ = mallopt(M_ARENA_MAX, 1)
        _ = mallopt(M_MMAP_THRESHOLD, 64 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 256 << 20)
        _ = mallopt(M_TOP_PAD, 16 << 20)
        #endif
    }
}
