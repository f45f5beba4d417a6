/// Errors of the air-gap guard: a network interface is up, or the seccomp filter could not be installed.
public enum AirGapError: Error, Equatable, Sendable {
    /// Non-loopback network interfaces are up; their names. The override is `--allow-network` or
    /// `AIRLOCK_ALLOW_NETWORK=1`.
    case networkInterfacesUp([String])
    /// The interface list (sysfs) could not be read; an errno-style code.
    case interfaceListFailed(errno: Int32)
    /// prctl(PR_SET_NO_NEW_PRIVS) failed with `errno`.
    case noNewPrivsFailed(errno: Int32)
    /// seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC refused the filter; its `errno` (EAGAIN: a thread could not sync).
    case seccompFailed(errno: Int32)
    /// The filter is not available on this CPU architecture.
    case unsupportedArchitecture
    /// A start-up step (closing inherited descriptors, turning core dumps off) failed.
    case hardeningFailed(step: String, errno: Int32)
}

extension AirGapError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .networkInterfacesUp(let names):
            "refusing to touch the seed while network interfaces are up: \(names.joined(separator: ", ")); "
                + "take them down (ip link set DEV down) or override with --allow-network / AIRLOCK_ALLOW_NETWORK=1"
        case .interfaceListFailed(let code): "cannot list network interfaces from /sys/class/net (errno \(code))"
        case .noNewPrivsFailed(let code): "cannot set no_new_privs for the seccomp filter (errno \(code))"
        case .seccompFailed(let code):
            "cannot install the seccomp filter on every thread (seccomp(2) with TSYNC; errno \(code))"
        case .hardeningFailed(let step, let code): "cannot harden the process: \(step) failed (errno \(code))"
        case .unsupportedArchitecture: "the seccomp filter supports x86_64 and aarch64 only"
        }
    }
}
