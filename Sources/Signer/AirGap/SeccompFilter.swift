internal import CAirGap
import Foundation

/// A seccomp-BPF filter that makes socket(2) fail with EPERM in this process (docs/architecture.md section 5).
///
/// The program checks `seccomp_data.arch` first: a system call made under another ABI (the i386 `int 0x80` entry on
/// x86_64, which has its own socket numbers) kills the process, since nothing in the signer uses one and letting it
/// through would bypass the number check. On x86_64 every x32 system call (number ≥ 0x40000000) fails with EPERM
/// for the same reason. Everything else is allowed. The filter is installed with seccomp(2) and
/// `SECCOMP_FILTER_FLAG_TSYNC`, so it covers every thread of the process (Dispatch and Swift concurrency threads
/// exist before `run()`); kernels without seccomp(2) fall back to prctl(PR_SET_SECCOMP), which covers the calling
/// thread and the threads it creates. Filters cannot be removed, and child processes inherit them.
///
/// - SeeAlso: https://www.kernel.org/doc/html/latest/userspace-api/seccomp_filter.html
public enum SeccompFilter {
    // Constants of <linux/filter.h>, <linux/bpf_common.h>, <linux/seccomp.h> and <linux/audit.h>; the macros that
    // combine other macros do not reach Swift, so they are spelled out here.
    /// BPF_LD | BPF_W | BPF_ABS: load the 32-bit word at an offset of `struct seccomp_data`.
    static let loadWord: UInt16 = 0x00 | 0x00 | 0x20
    /// BPF_JMP | BPF_JEQ | BPF_K.
    static let jumpIfEqual: UInt16 = 0x05 | 0x10 | 0x00
    /// BPF_JMP | BPF_JGE | BPF_K.
    static let jumpIfGreaterOrEqual: UInt16 = 0x05 | 0x30 | 0x00
    /// BPF_RET | BPF_K.
    static let returnConstant: UInt16 = 0x06 | 0x00
    /// offsetof(struct seccomp_data, nr).
    static let offsetOfNumber: UInt32 = 0
    /// offsetof(struct seccomp_data, arch).
    static let offsetOfArch: UInt32 = 4
    /// SECCOMP_RET_ALLOW.
    static let retAllow: UInt32 = 0x7FFF_0000
    /// SECCOMP_RET_ERRNO; the low 16 bits carry the errno.
    static let retErrno: UInt32 = 0x0005_0000
    /// SECCOMP_RET_KILL_PROCESS.
    static let retKillProcess: UInt32 = 0x8000_0000
    /// SECCOMP_FILTER_FLAG_TSYNC.
    static let flagTSync: UInt32 = 1
    /// __X32_SYSCALL_BIT.
    static let x32Bit: UInt32 = 0x4000_0000

    #if arch(x86_64)
    /// AUDIT_ARCH_X86_64 = EM_X86_64 (62) | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE.
    static let auditArch: UInt32? = 0xC000_003E
    #elseif arch(arm64)
    /// AUDIT_ARCH_AARCH64 = EM_AARCH64 (183) | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE.
    static let auditArch: UInt32? = 0xC000_00B7
    #else
    static let auditArch: UInt32? = nil
    #endif

    /// The BPF program, one `(code, jt, jf, k)` per instruction; jumps count instructions to skip.
    static func program() throws(AirGapError) -> [sock_filter] {
        guard let arch = auditArch else { throw .unsupportedArchitecture }
        let socketNumber = airlock_socket_syscall_number()
        let errnoEPERM = retErrno | UInt32(EPERM)
        func op(_ code: UInt16, _ jt: UInt8, _ jf: UInt8, _ k: UInt32) -> sock_filter {
            sock_filter(code: code, jt: jt, jf: jf, k: k)
        }
        #if arch(x86_64)
        let x32Check = op(jumpIfGreaterOrEqual, 2, 0, x32Bit)  // 3: x32 ABI → EPERM (6)
        #else
        let x32Check = op(jumpIfGreaterOrEqual, 0, 0, 0)  // 3: no x32 ABI: falls through either way
        #endif
        return [
            op(loadWord, 0, 0, offsetOfArch),  // 0: A = arch
            op(jumpIfEqual, 0, 5, arch),  // 1: native ABI → 2, else → 7 (kill)
            op(loadWord, 0, 0, offsetOfNumber),  // 2: A = system call number
            x32Check,  // 3
            op(jumpIfEqual, 1, 0, socketNumber),  // 4: socket → 6
            op(returnConstant, 0, 0, retAllow),  // 5
            op(returnConstant, 0, 0, errnoEPERM),  // 6
            op(returnConstant, 0, 0, retKillProcess),  // 7
        ]
    }

    /// Installs the filter in this process.
    ///
    /// - Throws: `AirGapError.noNewPrivsFailed`, `.seccompFailed` or `.unsupportedArchitecture`.
    public static func install() throws(AirGapError) {
        var filter = try program()
        guard airlock_set_no_new_privs() == 0 else { throw .noNewPrivsFailed(errno: airlock_errno()) }
        let count = UInt16(filter.count)
        let result: Int32 = filter.withUnsafeMutableBufferPointer { buffer in
            var program = sock_fprog(len: count, filter: buffer.baseAddress)
            if airlock_seccomp_set_filter(&program, flagTSync) == 0 { return 0 }
            // ENOSYS: a kernel before 3.17 without seccomp(2); EINVAL: TSYNC unknown. Use the prctl interface.
            let first = airlock_errno()
            guard first == ENOSYS || first == EINVAL else { return first }
            return airlock_prctl_set_seccomp_filter(&program) == 0 ? 0 : airlock_errno()
        }
        guard result == 0 else { throw .seccompFailed(errno: result) }
    }

    /// What a socket(2) call does now: `nil` when it succeeded (the descriptor is closed again), else its errno.
    public static func probeSocket() -> Int32? {
        let fd = airlock_probe_socket()
        if fd >= 0 {
            close(Int32(fd))
            return nil
        }
        return airlock_errno()
    }

    /// The `Seccomp:` mode of /proc/self/status: 0 none, 1 strict, 2 filter; nil when unreadable.
    public static func currentMode() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Seccomp:") {
            return Int(line.dropFirst("Seccomp:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }
}
