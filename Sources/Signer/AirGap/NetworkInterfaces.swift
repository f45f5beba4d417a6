import Foundation

/// The machine's network interfaces as getifaddrs(3) reports them.
public enum NetworkInterfaces {
    /// `IFF_UP` of <net/if.h>: the interface is administratively up.
    static let flagUp: UInt32 = 0x1
    /// `IFF_LOOPBACK` of <net/if.h>: the loopback interface.
    static let flagLoopback: UInt32 = 0x8

    /// The names of interfaces that are up and not loopback, sorted and without duplicates (getifaddrs lists an
    /// interface once per address family).
    ///
    /// - Throws: `AirGapError.interfaceListFailed` when getifaddrs fails.
    public static func activeNonLoopback() throws(AirGapError) -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { throw .interfaceListFailed(errno: errno) }
        defer { freeifaddrs(list) }
        var names: Set<String> = []
        var cursor = list
        while let entry = cursor {
            let flags = UInt32(entry.pointee.ifa_flags)
            if flags & flagUp != 0, flags & flagLoopback == 0, let name = entry.pointee.ifa_name {
                names.insert(String(cString: name))
            }
            cursor = entry.pointee.ifa_next
        }
        return names.sorted()
    }
}
