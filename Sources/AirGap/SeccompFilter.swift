internal import CAirGap
import Foundation

/// The seccomp-BPF filters of docs/architecture.md section 5: every way out of the signer's process fails with EPERM.
///
/// `Profile.signer` (every run) refuses:
/// - `socket` for every address family, AF_UNIX included: nothing in the signer needs a socket of its own (glibc's
///   nscd and syslog clients fall back when it fails), and an AF_UNIX socket could reach a local daemon that relays;
/// - `socketpair` for every family but AF_UNIX (a pair only reaches this process and its children);
/// - `connect`, `bind`, `listen`, `accept`, `accept4`, `sendto`, `sendmsg`, `sendmmsg`: also on a socket that
///   existed before the filter went on (an inherited or pre-made one);
/// - `io_uring_setup`, `io_uring_enter`, `io_uring_register` (a ring performs socket operations without these calls);
/// - `ptrace`, `process_vm_readv`, `process_vm_writev`, `pidfd_getfd` (reading or driving another process, or
///   taking its descriptors), and `bpf`.
///
/// `Profile.decoder` (the child that decodes images) refuses all that and also starting programs or processes
/// (`execve`, `execveat`, `fork`, `vfork`, `clone` without `CLONE_THREAD`; `clone3` answers ENOSYS so libc falls back
/// to `clone`, whose flags the filter can read) and opening files (`open`, `openat`, `openat2`): it works on the
/// bytes of its standard input only.
///
/// The program checks `seccomp_data.arch` first: a system call made under another ABI (the i386 `int 0x80` entry on
/// x86_64, which has its own numbers) kills the process; on x86_64 every x32 system call (number ≥ 0x40000000) fails
/// with EPERM. The filter is installed with seccomp(2) and `SECCOMP_FILTER_FLAG_TSYNC`, so it covers every thread of
/// the process (Dispatch and Swift concurrency threads exist before `run()`); a kernel that cannot do that is refused
/// (there is no prctl fallback, which would cover one thread only). Filters cannot be removed, and child processes
/// inherit them.
///
/// - SeeAlso: https://www.kernel.org/doc/html/latest/userspace-api/seccomp_filter.html
public enum SeccompFilter {
    /// Which system calls a filter refuses.
    public enum Profile: Sendable {
        /// Every airlock-signer process: no way out.
        case signer
        /// The image-decoding child: no way out, no new process or program, no file opened.
        case decoder
    }

    // Constants of <linux/filter.h>, <linux/bpf_common.h>, <linux/seccomp.h> and <linux/audit.h>; the macros that
    // combine other macros do not reach Swift, so they are spelled out here.
    /// BPF_LD | BPF_W | BPF_ABS: load the 32-bit word at an offset of `struct seccomp_data`.
    static let loadWord: UInt16 = 0x00 | 0x00 | 0x20
    /// BPF_JMP | BPF_JEQ | BPF_K.
    static let jumpIfEqual: UInt16 = 0x05 | 0x10 | 0x00
    /// BPF_JMP | BPF_JGE | BPF_K.
    static let jumpIfGreaterOrEqual: UInt16 = 0x05 | 0x30 | 0x00
    /// BPF_JMP | BPF_JSET | BPF_K: jump when `A & k` is not zero.
    static let jumpIfAnySet: UInt16 = 0x05 | 0x40 | 0x00
    /// BPF_RET | BPF_K.
    static let returnConstant: UInt16 = 0x06 | 0x00
    /// offsetof(struct seccomp_data, nr).
    static let offsetOfNumber: UInt32 = 0
    /// offsetof(struct seccomp_data, arch).
    static let offsetOfArch: UInt32 = 4
    /// offsetof(struct seccomp_data, args[0]): its low 32 bits on a little-endian machine.
    static let offsetOfFirstArgument: UInt32 = 16
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

    /// The system calls every profile refuses outright, by name (for the docs and the tests) and number.
    static let deniedCalls: [(name: String, number: Int32)] = [
        ("socket", Int32(AIRLOCK_NR_SOCKET)), ("connect", Int32(AIRLOCK_NR_CONNECT)),
        ("bind", Int32(AIRLOCK_NR_BIND)), ("listen", Int32(AIRLOCK_NR_LISTEN)),
        ("accept", Int32(AIRLOCK_NR_ACCEPT)), ("accept4", Int32(AIRLOCK_NR_ACCEPT4)),
        ("sendto", Int32(AIRLOCK_NR_SENDTO)), ("sendmsg", Int32(AIRLOCK_NR_SENDMSG)),
        ("sendmmsg", Int32(AIRLOCK_NR_SENDMMSG)), ("io_uring_setup", Int32(AIRLOCK_NR_IO_URING_SETUP)),
        ("io_uring_enter", Int32(AIRLOCK_NR_IO_URING_ENTER)),
        ("io_uring_register", Int32(AIRLOCK_NR_IO_URING_REGISTER)), ("ptrace", Int32(AIRLOCK_NR_PTRACE)),
        ("process_vm_readv", Int32(AIRLOCK_NR_PROCESS_VM_READV)),
        ("process_vm_writev", Int32(AIRLOCK_NR_PROCESS_VM_WRITEV)), ("pidfd_getfd", Int32(AIRLOCK_NR_PIDFD_GETFD)),
        ("bpf", Int32(AIRLOCK_NR_BPF)),
    ]

    /// What the decoder profile refuses on top (numbers below 0 do not exist on this architecture).
    static let decoderDeniedCalls: [(name: String, number: Int32)] = [
        ("execve", Int32(AIRLOCK_NR_EXECVE)), ("execveat", Int32(AIRLOCK_NR_EXECVEAT)),
        ("fork", Int32(AIRLOCK_NR_FORK)), ("vfork", Int32(AIRLOCK_NR_VFORK)), ("open", Int32(AIRLOCK_NR_OPEN)),
        ("openat", Int32(AIRLOCK_NR_OPENAT)), ("openat2", Int32(AIRLOCK_NR_OPENAT2)),
    ].filter { $0.number >= 0 }

    /// The names of the system calls `profile` refuses (conditional ones described in words).
    public static func refusedCalls(_ profile: Profile) -> [String] {
        var names = deniedCalls.map(\.name) + ["socketpair (all but AF_UNIX)"]
        if profile == .decoder {
            names += decoderDeniedCalls.map(\.name) + ["clone (without CLONE_THREAD)", "clone3 (ENOSYS)"]
        }
        return names
    }

    /// One instruction with symbolic jump targets, resolved by `assemble`.
    enum Instruction {
        case load(UInt32)
        case jump(UInt16, UInt32, then: Label?, else: Label?)
        case ret(UInt32)
        case label(Label)
    }

    /// Where a jump goes.
    enum Label: Hashable {
        case allow, deny, enosys, kill
        case after(Int)
    }

    /// The BPF program of `profile`, one `(code, jt, jf, k)` per instruction.
    static func program(_ profile: Profile = .signer) throws(AirGapError) -> [sock_filter] {
        guard let arch = auditArch else { throw .unsupportedArchitecture }
        var code: [Instruction] = [
            .load(offsetOfArch),
            .jump(jumpIfEqual, arch, then: nil, else: .kill),
            .load(offsetOfNumber),
        ]
        #if arch(x86_64)
        code.append(.jump(jumpIfGreaterOrEqual, x32Bit, then: .deny, else: nil))
        #endif
        let denied = deniedCalls + (profile == .decoder ? decoderDeniedCalls : [])
        for call in denied { code.append(.jump(jumpIfEqual, UInt32(bitPattern: call.number), then: .deny, else: nil)) }
        // socketpair(family, …): AF_UNIX passes, every other family is refused.
        code += [
            .jump(jumpIfEqual, UInt32(AIRLOCK_NR_SOCKETPAIR), then: nil, else: .after(0)),
            .load(offsetOfFirstArgument),
            .jump(jumpIfEqual, airlock_af_unix(), then: .allow, else: .deny),
            .label(.after(0)),
        ]
        if profile == .decoder {
            code += [
                .jump(jumpIfEqual, UInt32(AIRLOCK_NR_CLONE3), then: .enosys, else: nil),
                .jump(jumpIfEqual, UInt32(AIRLOCK_NR_CLONE), then: nil, else: .allow),
                .load(offsetOfFirstArgument),
                .jump(jumpIfAnySet, airlock_clone_thread_flag(), then: .allow, else: .deny),
            ]
        }
        code += [
            .label(.allow), .ret(retAllow),
            .label(.deny), .ret(retErrno | UInt32(EPERM)),
            .label(.enosys), .ret(retErrno | UInt32(ENOSYS)),
            .label(.kill), .ret(retKillProcess),
        ]
        return try assemble(code)
    }

    /// Resolves labels into relative jumps (each at most 255 instructions ahead).
    static func assemble(_ code: [Instruction]) throws(AirGapError) -> [sock_filter] {
        var positions: [Label: Int] = [:]
        var position = 0
        for instruction in code {
            if case .label(let label) = instruction { positions[label] = position } else { position += 1 }
        }
        var out: [sock_filter] = []
        for instruction in code {
            let here = out.count
            func offset(_ label: Label?) throws(AirGapError) -> UInt8 {
                guard let label else { return 0 }
                guard let target = positions[label], target > here, target - here - 1 <= 255 else {
                    throw .unsupportedArchitecture
                }
                return UInt8(target - here - 1)
            }
            switch instruction {
            case .label: continue
            case .load(let offset): out.append(sock_filter(code: loadWord, jt: 0, jf: 0, k: offset))
            case .ret(let value): out.append(sock_filter(code: returnConstant, jt: 0, jf: 0, k: value))
            case .jump(let kind, let value, let then, let otherwise):
                out.append(sock_filter(code: kind, jt: try offset(then), jf: try offset(otherwise), k: value))
            }
        }
        return out
    }

    /// Installs the filter of `profile` in this process, on every thread.
    ///
    /// - Throws: `AirGapError.noNewPrivsFailed`, `.seccompFailed` or `.unsupportedArchitecture`.
    public static func install(_ profile: Profile = .signer) throws(AirGapError) {
        var filter = try program(profile)
        guard airlock_set_no_new_privs() == 0 else { throw .noNewPrivsFailed(errno: airlock_errno()) }
        let count = UInt16(filter.count)
        let result: Int32 = filter.withUnsafeMutableBufferPointer { buffer in
            var program = sock_fprog(len: count, filter: buffer.baseAddress)
            let answer = airlock_seccomp_set_filter(&program, flagTSync)
            if answer == 0 { return 0 }
            // A positive answer names a thread that could not be synchronised.
            return answer > 0 ? EAGAIN : airlock_errno()
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
        statusField("Seccomp").flatMap { Int($0) }
    }

    /// The number of filters stacked on this process (`Seccomp_filters:`), nil when unknown.
    public static func filterCount() -> Int? {
        statusField("Seccomp_filters").flatMap { Int($0) }
    }

    static func statusField(_ name: String) -> String? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
