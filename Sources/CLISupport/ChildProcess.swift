import Foundation

/// Runs a program as a child process with bytes on its standard input and its standard output collected (bounded);
/// posix_spawn(3), no shell, an empty environment, standard error shared.
///
/// The signer uses it to run itself in a hidden mode (image decoding, the selftest probe); Foundation's `Process`
/// is not used because it needs socketpair(2) and keeps the parent's environment.
public enum ChildProcess {
    /// What the child did.
    public struct Outcome: Sendable {
        /// Its exit status (when it exited), or 128 + the signal that ended it.
        public let status: Int32
        /// Its standard output.
        public let output: [UInt8]
        /// Whether it exited normally with status 0.
        public var succeeded: Bool { status == 0 }
    }

    /// A failure to start or talk to the child.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The path of the running program, for running it again.
    public static let ownExecutable = "/proc/self/exe"

    /// Starts the child and returns at once; `wait` finishes it.
    ///
    /// - Parameters:
    ///   - path: the program.
    ///   - arguments: its arguments (the program name first).
    ///   - environment: its environment, `NAME=value` each (empty by default).
    ///   - captureStandardError: give the child a pipe for standard error (`Running.readErrors`) instead of ours.
    /// - Returns: the running child.
    /// - Throws: `Failure` when the pipes cannot be made or the program cannot be started.
    public static func start(
        _ path: String, arguments: [String], environment: [String] = [], captureStandardError: Bool = false
    ) throws(Failure) -> Running {
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        var errors: [Int32] = [-1, -1]
        if captureStandardError {
            guard pipe(&errors) == 0 else { throw Failure(description: "pipe: \(errorText())") }
            for fd in errors { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        guard pipe(&input) == 0 else { throw Failure(description: "pipe: \(errorText())") }
        guard pipe(&output) == 0 else {
            close(input[0])
            close(input[1])
            throw Failure(description: "pipe: \(errorText())")
        }
        // Close-on-exec on all four ends: the child gets its copies only through the dup2 actions below.
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        if captureStandardError { posix_spawn_file_actions_adddup2(&actions, errors[1], 2) }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        // The signer ignores SIGPIPE; a child starts with the default again (ffmpeg ends when its reader goes away).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        close(input[0])
        close(output[1])
        if captureStandardError { close(errors[1]) }
        guard result == 0 else {
            close(input[1])
            close(output[0])
            if captureStandardError { close(errors[0]) }
            throw Failure(description: "cannot start \(path): \(String(cString: strerror(result)))")
        }
        return Running(pid: pid, input: input[1], output: output[0], errors: captureStandardError ? errors[0] : -1)
    }

    /// Runs the child to its end: writes `input`, closes its standard input, reads at most `maximumOutput` bytes.
    public static func run(
        _ path: String, arguments: [String], input: [UInt8] = [], maximumOutput: Int
    ) throws(Failure) -> Outcome {
        let child = try start(path, arguments: arguments)
        return try child.finish(input: input, maximumOutput: maximumOutput)
    }

    /// A child that was started.
    public struct Running: Sendable {
        /// Its process id.
        public let pid: pid_t
        let input: Int32
        /// The read end of the child's standard output.
        public let output: Int32
        /// The read end of the child's standard error, when captured (else -1).
        public let errors: Int32

        /// Closes the child's standard input (it reads end of file).
        public func closeInput() { close(input) }

        /// Reads the captured standard error to its end (at most `maximum` bytes kept) and closes it.
        public func readErrors(maximum: Int = 1 << 16) -> [UInt8] {
            guard errors >= 0 else { return [] }
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(errors, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                if out.count < maximum { out += buffer[0..<min(n, maximum - out.count)] }
            }
            close(errors)
            return out
        }

        /// Waits for the child to end: its exit status, or 128 + the signal that ended it.
        public func wait() -> Int32 {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 {
                guard errno == EINTR else { return -1 }
            }
            let low = status & 0x7F
            return low == 0 ? (status >> 8) & 0xFF : 128 + low
        }

        /// Writes `input` (a child that stops reading early is not an error), reads its output, waits for it.
        public func finish(input bytes: [UInt8], maximumOutput: Int) throws(Failure) -> Outcome {
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { raw in
                    raw.baseAddress.map { Glibc.write(input, $0 + written, raw.count - written) } ?? 0
                }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }  // EPIPE: the child stopped reading (SIGPIPE is ignored by the caller)
                written += n
            }
            close(input)
            var out: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            var overflow = false
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                if n <= 0 { break }
                if out.count + n > maximumOutput {
                    overflow = true
                    break
                }
                out += buffer[0..<n]
            }
            close(output)
            if overflow { kill(pid, SIGKILL) }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 {
                guard errno == EINTR else { throw Failure(description: "waitpid: \(errorText())") }
            }
            if overflow { throw Failure(description: "the child wrote more than \(maximumOutput) bytes") }
            let low = status & 0x7F
            let code = low == 0 ? (status >> 8) & 0xFF : 128 + low
            return Outcome(status: code, output: out)
        }
    }

    static func errorText() -> String { String(cString: strerror(errno)) }
}
