import Foundation
import Testing

@testable import AirGap
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

    /// Runs the built signer with `arguments`; returns its exit status and standard output.
    static func runSigner(_ arguments: [String]) throws -> (Int32, Data) {
        let process = Process()
        process.executableURL = try Self.signerBinary()
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    @Test("selftest: every way out fails under the filter, the pre-filter child's control calls succeed")
    func selftestInChildProcess() throws {
        let (status, data) = try Self.runSigner(["selftest", "--json"])
        #expect(status == 0)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["socket"] as? String == "failed with EPERM")
        #expect(object?["socket_blocked"] as? Bool == true)
        #expect(object?["seccomp_mode"] as? Int == 2)
        #expect(object?["dumpable"] as? Bool == false)
        #expect(object?["core_limit"] as? Int == 0)
        let inProcess = object?["in_process"] as? [[String: String]] ?? []
        #expect(inProcess.count == 9)
        #expect(inProcess.allSatisfy { $0["result"] == "EPERM" })
        let child = object?["pre_filter_child"] as? [String: Any]
        let control = child?["control"] as? [[String: String]] ?? []
        let filtered = child?["filtered"] as? [[String: String]] ?? []
        #expect(control.map { $0["call"] ?? "" } == ["socket", "connect", "sendmsg", "io_uring_setup", "ptrace"])
        #expect(control.allSatisfy { $0["result"] == "ok" })
        #expect(filtered.count == 5 && filtered.allSatisfy { $0["result"] == "EPERM" })
    }

    @Test("the BPF program checks the architecture first, kills other ABIs, and names every refused call")
    func program() throws {
        let program = try SeccompFilter.program()
        #expect(program[0].code == SeccompFilter.loadWord && program[0].k == 4)  // seccomp_data.arch
        #expect(program[1].code == SeccompFilter.jumpIfEqual && program[1].k == SeccompFilter.auditArch)
        // The arch mismatch jumps to the last instruction: kill the process.
        #expect(1 + 1 + Int(program[1].jf) == program.count - 1)
        #expect(program.last?.k == 0x8000_0000)
        let deny = program.firstIndex { $0.code == SeccompFilter.returnConstant && $0.k == 0x0005_0000 | UInt32(EPERM) }
        #expect(deny != nil)
        let compared = Set(program.filter { $0.code == SeccompFilter.jumpIfEqual }.map(\.k))
        for call in SeccompFilter.deniedCalls { #expect(compared.contains(UInt32(call.number)), "\(call.name)") }
        // Each refused call jumps to the EPERM return.
        for (index, instruction) in program.enumerated()
        where instruction.code == SeccompFilter.jumpIfEqual
            && SeccompFilter.deniedCalls.contains(where: { UInt32($0.number) == instruction.k })
        {
            #expect(index + 1 + Int(instruction.jt) == deny)
        }
        // The decoder profile adds exec, fork and open, which the signer profile lets through.
        let decoder = Set(try SeccompFilter.program(.decoder).filter { $0.code == SeccompFilter.jumpIfEqual }.map(\.k))
        for call in SeccompFilter.decoderDeniedCalls {
            #expect(decoder.contains(UInt32(call.number)) && !compared.contains(UInt32(call.number)), "\(call.name)")
        }
        #expect(SeccompFilter.refusedCalls(.decoder).count > SeccompFilter.refusedCalls(.signer).count)
    }

    @Test("the assembler refuses a jump further than BPF can encode")
    func jumpTooFar() {
        let code: [SeccompFilter.Instruction] =
            [.jump(SeccompFilter.jumpIfEqual, 1, then: .deny, else: nil)]
            + Array(repeating: .load(0), count: 300) + [.label(.deny), .ret(0)]
        #expect(throws: AirGapError.self) { try SeccompFilter.assemble(code) }
    }

    @Test("without a filter, this test process makes sockets and is dumpable (the probes tell both cases apart)")
    func controlWithoutFilter() {
        #expect(SeccompFilter.probeSocket() == nil)
        #expect(ProcessHardening.isDumpable)
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

    @Test("sysfs entries that are not directories (bonding_masters) are ignored; up, loopback and down are told apart")
    func sysfsEntries() throws {
        let dir = NSTemporaryDirectory() + "airlock-net-\(UUID().uuidString)"
        for (name, flags) in [("eth9", "0x1003"), ("lo", "0x9"), ("down0", "0x1002"), ("wlan1", "0x1043")] {
            try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
            try (flags + "\n").write(toFile: dir + "/\(name)/flags", atomically: true, encoding: .utf8)
        }
        try "eth9 bond0\n".write(toFile: dir + "/bonding_masters", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/veth1", withDestinationPath: dir + "/eth9")
        #expect(try NetworkInterfaces.activeNonLoopback(in: dir) == ["eth9", "veth1", "wlan1"])
        // The control: a directory without a readable flags file is still an error, not silently skipped.
        try FileManager.default.createDirectory(atPath: dir + "/broken0", withIntermediateDirectories: true)
        #expect(throws: AirGapError.self) { try NetworkInterfaces.activeNonLoopback(in: dir) }
    }
}
