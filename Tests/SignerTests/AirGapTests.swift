import Foundation
import Testing

@testable import Signer

/// The air-gap guard of docs/architecture.md section 5.
@Suite("AirGap")
struct AirGapTests {
    /// The built `airlock-signer`, in the build directory above this test bundle.
    static func signerBinary() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<5 {
            directory.deleteLastPathComponent()
            let candidate = directory.appendingPathComponent("airlock-signer")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        struct NotBuilt: Error {}
        throw NotBuilt()
    }

    @Test("without the filter this process can create a socket (so the probe tells both cases apart)")
    func probeWithoutFilter() {
        #expect(SeccompFilter.probeSocket() == nil)
    }

    @Test("the filter makes socket() fail with EPERM in the signer's process (airlock-signer selftest)")
    func selftestInChildProcess() throws {
        let process = Process()
        process.executableURL = try Self.signerBinary()
        process.arguments = ["selftest", "--json"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["socket"] as? String == "failed with EPERM")
        #expect(object?["socket_blocked"] as? Bool == true)
        #expect(object?["seccomp_mode"] as? Int == 2)
    }

    @Test("the BPF program checks the architecture first and returns EPERM for socket")
    func program() throws {
        let program = try SeccompFilter.program()
        #expect(program.count == 8)
        #expect(program[0].k == 4)  // offsetof(struct seccomp_data, arch)
        #expect(program[6].k == 0x0005_0000 | UInt32(EPERM))
        #expect(program[7].k == 0x8000_0000)
    }

    @Test("the interface list never holds loopback, and the override skips the check")
    func interfaces() throws {
        let up = try NetworkInterfaces.activeNonLoopback()
        #expect(!up.contains("lo"))
        try AirGapGuard.requireOffline(allowNetwork: true)
        if !up.isEmpty, !AirGapGuard.environmentAllowsNetwork {
            #expect(throws: AirGapError.networkInterfacesUp(up)) { try AirGapGuard.requireOffline() }
        }
    }
}
