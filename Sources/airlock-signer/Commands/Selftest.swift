import AirGap
import ArgumentParser
import CLISupport
import Codecs
import Foundation
import Signer
import Synchronization

extension AirlockSigner {
    /// `airlock-signer selftest`: proves the air-gap guard.
    struct Selftest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prove the air-gap guard: every way out fails under the seccomp filter, with a control.",
            discussion: """
                Every airlock-signer run closes inherited descriptors above 2, turns core dumps off and installs the \
                seccomp filter before it reads any input. This command shows it:
                  - in this process (filter on): socket, socketpair(AF_INET), connect, sendto, sendmsg, \
                io_uring_setup, ptrace, process_vm_readv and bpf must fail with EPERM;
                  - in a probe child started before this process's filter: socket, connect, sendmsg, io_uring_setup \
                and ptrace succeed (the control), then, after the child installs the same filter, connect and \
                sendmsg/sendto on the sockets it made before, socket and io_uring_setup fail with EPERM;
                  - in a child under the image decoder's stricter filter: execve, openat, clone of a new process and \
                socket fail with EPERM (this process, under the signer's filter, opens files and starts children);
                  - the descriptors closed at start are listed, none above 2 but the selftest's own stays open, and \
                the process is not dumpable with RLIMIT_CORE 0.
                It exits 0 when all of that holds, else 4. It also lists the network interfaces that are up, and \
                prints the version, the commit and the SHA-256 of this executable (/proc/self/exe) to compare with the \
                published SHA256SUMS of a reproducible build (docs/reproducible.md).

                Examples:
                  airlock-signer selftest
                  airlock-signer selftest --json
                """)

        @Flag(help: "Machine-readable JSON on stdout.") var json = false

        /// The probe child, started by `main` before this process's filter goes on.
        static let probe = Mutex<ChildProcess.Running?>(nil)

        /// Starts the probe child (called by `main` before the filter; a failure shows in the report).
        static func startProbeChild() {
            let child = try? ChildProcess.start(
                ChildProcess.ownExecutable, arguments: ["airlock-signer", SyscallProbe.childArgument])
            probe.withLock { $0 = child }
        }

        /// The `--json` answer.
        struct Report: Encodable {
            let version: String
            /// `null` in a development build: the key is always there for scripts.
            @NullEncoded var commit: String?
            let executableSHA256: String?
            let seccompMode: Int?
            let seccompFilters: Int?
            let socket: String
            let socketBlocked: Bool
            let inProcess: [SyscallProbeResult]
            let preFilterChild: PreFilterProbeReport?
            let decoderChild: PreFilterProbeReport?
            let closedAtStart: [Int32]
            let openDescriptors: [ProcessHardening.OpenDescriptor]
            let dumpable: Bool
            let coreLimit: Int64?
            let interfacesUp: [String]
            let ok: Bool
            let failures: [String]

            enum CodingKeys: String, CodingKey {
                case version, commit
                case executableSHA256 = "executable_sha256"
                case seccompMode = "seccomp_mode"
                case seccompFilters = "seccomp_filters"
                case socket
                case socketBlocked = "socket_blocked"
                case inProcess = "in_process"
                case preFilterChild = "pre_filter_child"
                case decoderChild = "decoder_child"
                case closedAtStart = "closed_at_start"
                case openDescriptors = "open_descriptors"
                case dumpable
                case coreLimit = "core_limit"
                case interfacesUp = "interfaces_up"
                case ok, failures
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                let report = Self.makeReport()
                if json {
                    try JSONOutput.print(report)
                } else {
                    print(Self.text(report))
                }
                guard report.ok else {
                    throw CLIError(
                        .refused, "the air-gap guard is not working: " + report.failures.joined(separator: "; "))
                }
                if !json { print("OK: the air-gap filter blocks every way out.") }
            }
        }

        /// The report as the terminal shows it.
        static func text(_ report: Report) -> String {
            var lines = ["airlock-signer \(report.version)"]
            lines.append(
                "executable SHA-256: \(report.executableSHA256 ?? "unknown (/proc/self/exe could not be read)")")
            lines.append("seccomp mode: \(report.seccompMode.map(String.init) ?? "unknown") (2 = filter)")
            for probe in report.inProcess { lines.append("  \(probe.call): \(probe.result)") }
            if let child = report.preFilterChild {
                lines.append("probe child, before its filter (control):")
                for probe in child.control { lines.append("  \(probe.call): \(probe.result)") }
                lines.append("probe child, after its filter:")
                for probe in child.filtered { lines.append("  \(probe.call): \(probe.result)") }
            }
            if let sandbox = report.decoderChild {
                lines.append("image decoder sandbox:")
                for probe in sandbox.filtered { lines.append("  \(probe.call): \(probe.result)") }
            }
            lines.append(
                "descriptors closed at start: \(report.closedAtStart.map(String.init).joined(separator: ", "))")
            lines.append("dumpable: \(report.dumpable ? "yes" : "no"); RLIMIT_CORE: \(report.coreLimit ?? -1)")
            lines.append(
                "network interfaces up: "
                    + (report.interfacesUp.isEmpty ? "none" : report.interfacesUp.joined(separator: ", ")))
            return lines.joined(separator: "\n")
        }

        static func makeReport() -> Report {
            let inProcess = SyscallProbe.inThisProcess()
            var failures = inProcess.filter { !$0.refused }.map { "\($0.call) \($0.result) under the filter" }
            var child: PreFilterProbeReport?
            if let running = probe.withLock({ $0 }) {
                if let outcome = try? running.finish(input: [], maximumOutput: 1 << 16) {
                    child = PreFilterProbeReport(serialized: Array(outcome.output))
                }
            }
            if let child {
                if let error = child.error { failures.append("probe child: \(error)") }
                failures += child.control.filter { $0.result != "ok" }.map {
                    "control \($0.call) \($0.result) without the filter (the check could not tell)"
                }
                failures += child.filtered.filter { !$0.refused }.map { "\($0.call) \($0.result) under the filter" }
                if child.filtered.isEmpty { failures.append("probe child tried nothing under the filter") }
            } else {
                failures.append("the probe child did not answer")
            }
            let sandbox = try? ChildProcess.run(
                ChildProcess.ownExecutable, arguments: ["airlock-signer", SyscallProbe.decoderArgument],
                maximumOutput: 1 << 16)
            let decoderChild = sandbox.flatMap { PreFilterProbeReport(serialized: Array($0.output)) }
            if let decoderChild {
                if let error = decoderChild.error { failures.append("decoder child: \(error)") }
                failures += decoderChild.filtered.filter { !$0.refused }.map {
                    "\($0.call) \($0.result) in the image decoder's sandbox"
                }
            } else {
                failures.append("the decoder probe child did not answer")
            }
            let open = ProcessHardening.openDescriptors()
            let dumpable = ProcessHardening.isDumpable
            let core = ProcessHardening.coreLimit
            if dumpable { failures.append("the process is dumpable") }
            if core != 0 { failures.append("RLIMIT_CORE is \(core ?? -1), not 0") }
            let socketProbe = inProcess[0]
            return Report(
                version: AirlockVersion.string, commit: AirlockVersion.commit,
                executableSHA256: ExecutableDigest.sha256(),
                seccompMode: SeccompFilter.currentMode(), seccompFilters: SeccompFilter.filterCount(),
                socket: socketProbe.refused ? "failed with EPERM" : socketProbe.result,
                socketBlocked: socketProbe.refused, inProcess: inProcess, preFilterChild: child,
                decoderChild: decoderChild,
                closedAtStart: ProcessHardening.closedAtStart, openDescriptors: open, dumpable: dumpable,
                coreLimit: core, interfacesUp: (try? NetworkInterfaces.activeNonLoopback()) ?? [],
                ok: failures.isEmpty, failures: failures)
        }
    }
}
