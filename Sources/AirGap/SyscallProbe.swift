internal import CAirGap
import Codecs
import Foundation

/// One system call tried by `airlock-signer selftest`, and what happened.
public struct SyscallProbeResult: Encodable, Sendable, Equatable {
    /// The call, as in `socket` or `connect (socket made before the filter)`.
    public let call: String
    /// `ok`, or the errno's name (`EPERM`, `EBADF`, …).
    public let result: String

    /// Whether the call was refused with EPERM (what the filter answers).
    public var refused: Bool { result == "EPERM" }

    init(call: String, result: String) {
        self.call = call
        self.result = result
    }

    init(_ call: String, _ answer: Int) {
        self.call = call
        self.result = answer >= 0 ? "ok" : Self.name(of: airlock_errno())
    }

    static func name(of code: Int32) -> String {
        switch code {
        case EPERM: "EPERM"
        case EBADF: "EBADF"
        case EACCES: "EACCES"
        case ENOSYS: "ENOSYS"
        case EINVAL: "EINVAL"
        case EFAULT: "EFAULT"
        case ENOENT: "ENOENT"
        case ESRCH: "ESRCH"
        case EOPNOTSUPP: "EOPNOTSUPP"
        case EAFNOSUPPORT: "EAFNOSUPPORT"
        case ECONNREFUSED: "ECONNREFUSED"
        default: "errno \(code)"
        }
    }
}

/// What the pre-filter probe child saw: the control calls before it installed the filter, the same calls after, on
/// sockets it made before (docs/architecture.md section 5; `airlock-signer selftest`).
public struct PreFilterProbeReport: Encodable, Sendable, Equatable {
    /// Before the filter: each call should succeed (`ok`), proving the check can tell the two cases apart.
    public let control: [SyscallProbeResult]
    /// After the filter, on the sockets made before it: each should be `EPERM`.
    public let filtered: [SyscallProbeResult]
    /// Why the probe stopped early, if it did.
    public let error: String?

    init(control: [SyscallProbeResult], filtered: [SyscallProbeResult], error: String?) {
        self.control = control
        self.filtered = filtered
        self.error = error
    }

    /// The report as the probe child writes it to its parent: compact JSON (`control`, `filtered`, `error` when set).
    public func serialized() -> [UInt8] {
        func results(_ list: [SyscallProbeResult]) -> JSONValue {
            .array(list.map { .object([("call", .string($0.call)), ("result", .string($0.result))]) })
        }
        var members: [(String, JSONValue)] = [("control", results(control)), ("filtered", results(filtered))]
        if let error { members.append(("error", .string(error))) }
        return JSONValue.object(members).serialized()
    }

    /// Reads what a probe child wrote (`serialized()`), or nil when it is not such a report.
    public init?(serialized bytes: [UInt8]) {
        guard let root = try? JSONValue(json: bytes) else { return nil }
        func results(_ key: String) -> [SyscallProbeResult]? {
            guard let items = root[key]?.array else { return nil }
            let parsed = items.compactMap { item in
                item["call"]?.string.flatMap { call in
                    item["result"]?.string.map { SyscallProbeResult(call: call, result: $0) }
                }
            }
            return parsed.count == items.count ? parsed : nil
        }
        guard let control = results("control"), let filtered = results("filtered") else { return nil }
        if let error = root["error"], error.string == nil, !error.isNull { return nil }
        self.init(control: control, filtered: filtered, error: root["error"]?.string)
    }
}

/// The system calls `selftest` tries.
public enum SyscallProbe {
    /// The hidden first argument that runs `runPreFilterChild()` in a fresh airlock-signer process.
    public static let childArgument = "__airlock-selftest-probe"
    /// The loopback UDP port the probes address (discard; nothing needs to listen).
    static let port: UInt16 = 9

    /// Tries each way out in this process (which has the filter on): every answer should be EPERM.
    public static func inThisProcess() -> [SyscallProbeResult] {
        [
            SyscallProbeResult("socket", airlock_probe_socket()),
            SyscallProbeResult("socketpair (AF_INET)", airlock_probe_socketpair_inet()),
            SyscallProbeResult("connect", airlock_probe_connect(-1, port)),
            SyscallProbeResult("sendto", airlock_probe_sendto(-1, port)),
            SyscallProbeResult("sendmsg", airlock_probe_sendmsg(-1)),
            SyscallProbeResult("io_uring_setup", airlock_probe_io_uring_setup()),
            SyscallProbeResult("ptrace", airlock_probe_ptrace_traceme()),
            SyscallProbeResult("process_vm_readv", airlock_probe_process_vm_readv()),
            SyscallProbeResult("bpf", airlock_probe_bpf()),
        ]
    }

    /// The probe child's work, in a process that has no filter yet: makes two UDP sockets, shows that socket,
    /// connect, sendmsg, io_uring_setup and ptrace work (the control), installs the signer's filter, then tries
    /// connect and sendmsg/sendto on the sockets made before it, and socket and io_uring_setup again.
    public static func runPreFilterChild() -> PreFilterProbeReport {
        let first = Int32(truncatingIfNeeded: airlock_probe_socket())
        let second = Int32(truncatingIfNeeded: airlock_probe_socket())
        var control = [SyscallProbeResult("socket", first >= 0 && second >= 0 ? 0 : -1)]
        control.append(SyscallProbeResult("connect", airlock_probe_connect(first, port)))
        control.append(SyscallProbeResult("sendmsg", airlock_probe_sendmsg(first)))
        control.append(SyscallProbeResult("io_uring_setup", airlock_probe_io_uring_setup()))
        control.append(SyscallProbeResult("ptrace", airlock_probe_ptrace_traceme()))
        do { try SeccompFilter.install() } catch {
            return PreFilterProbeReport(control: control, filtered: [], error: "\(error)")
        }
        let filtered = [
            SyscallProbeResult("connect (socket made before the filter)", airlock_probe_connect(second, port)),
            SyscallProbeResult("sendmsg (socket connected before the filter)", airlock_probe_sendmsg(first)),
            SyscallProbeResult("sendto (socket made before the filter)", airlock_probe_sendto(second, port)),
            SyscallProbeResult("socket", airlock_probe_socket()),
            SyscallProbeResult("io_uring_setup", airlock_probe_io_uring_setup()),
        ]
        return PreFilterProbeReport(control: control, filtered: filtered, error: nil)
    }

    /// The hidden first argument that runs `runDecoderProbe()`: the image decoder's sandbox, probed.
    public static let decoderArgument = "__airlock-decoder-probe"

    /// Installs the decoder filter the way the image decoder child does (`enterDecoderSandbox`), then tries what it
    /// adds (execve, openat, a new process) and a way out (socket): every answer should be EPERM.
    public static func runDecoderProbe() -> PreFilterProbeReport {
        do { try enterDecoderSandbox() } catch {
            return PreFilterProbeReport(control: [], filtered: [], error: "\(error)")
        }
        return PreFilterProbeReport(
            control: [],
            filtered: [
                SyscallProbeResult("execve", airlock_probe_execve()),
                SyscallProbeResult("openat", airlock_probe_openat()),
                SyscallProbeResult("clone (new process)", airlock_probe_clone_process()),
                SyscallProbeResult("socket", airlock_probe_socket()),
            ], error: nil)
    }

    /// What the image decoder child runs before it reads a byte: the decoder profile on top of the inherited one.
    public static func enterDecoderSandbox() throws(AirGapError) {
        try SeccompFilter.install(.decoder)
    }
}
