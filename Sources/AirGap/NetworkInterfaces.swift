import Foundation

/// The machine's network interfaces, read from sysfs (`/sys/class/net/NAME/flags`).
///
/// getifaddrs(3) opens a netlink socket, which the signer's own seccomp filter forbids, so the flags are read from
/// sysfs instead: the same `IFF_*` bits the kernel reports through netlink.
public enum NetworkInterfaces {
    /// `IFF_UP` of <net/if.h>: the interface is administratively up.
    static let flagUp: UInt32 = 0x1
    /// `IFF_LOOPBACK` of <net/if.h>: the loopback interface.
    static let flagLoopback: UInt32 = 0x8
    /// Where Linux lists interfaces.
    public static let sysfsDirectory = "/sys/class/net"

    /// The names of interfaces that are up and not loopback, sorted.
    ///
    /// Entries of the directory that are not directories (after following links) are not interfaces and are
    /// skipped: the bonding driver's `bonding_masters` file lives there.
    /// - Parameter directory: where interfaces are listed (`/sys/class/net`; tests give another).
    /// - Returns: the interface names.
    /// - Throws: `AirGapError.interfaceListFailed` when sysfs cannot be read (then the air gap cannot be shown).
    public static func activeNonLoopback(in directory: String = sysfsDirectory) throws(AirGapError) -> [String] {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw .interfaceListFailed(errno: ENOENT)
        }
        var up: [String] = []
        for name in names {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: "\(directory)/\(name)", isDirectory: &isDirectory),
                isDirectory.boolValue
            else { continue }
            let path = "\(directory)/\(name)/flags"
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw .interfaceListFailed(errno: EACCES)
            }
            let digits = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let flags = UInt32(digits.hasPrefix("0x") ? String(digits.dropFirst(2)) : digits, radix: 16) else {
                throw .interfaceListFailed(errno: EINVAL)
            }
            if flags & flagUp != 0, flags & flagLoopback == 0 { up.append(name) }
        }
        return up.sorted()
    }
}
