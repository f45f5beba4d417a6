import Foundation

/// The rule of docs/architecture.md section 5: the signer touches no secret while a non-loopback network interface is up.
///
/// Call `requireOffline(allowNetwork:)` before unlocking the vault. The override is the `--allow-network` flag or
/// the environment variable `AIRLOCK_ALLOW_NETWORK=1` (which the tests set, since both sides run on one machine).
public enum AirGapGuard {
    /// The environment variable that allows unlocking with interfaces up.
    public static let overrideVariable = "AIRLOCK_ALLOW_NETWORK"

    /// Whether the environment overrides the check (`AIRLOCK_ALLOW_NETWORK` is `1`, `true` or `yes`).
    public static var environmentAllowsNetwork: Bool {
        guard let value = ProcessInfo.processInfo.environment[overrideVariable]?.lowercased() else { return false }
        return ["1", "true", "yes"].contains(value)
    }

    /// Returns when no non-loopback interface is up, or when the check is overridden.
    ///
    /// - Throws: `AirGapError.networkInterfacesUp` naming the interfaces, or `.interfaceListFailed`.
    public static func requireOffline(allowNetwork: Bool = false) throws(AirGapError) {
        if allowNetwork || environmentAllowsNetwork { return }
        let up = try NetworkInterfaces.activeNonLoopback()
        guard up.isEmpty else { throw .networkInterfacesUp(up) }
    }
}
