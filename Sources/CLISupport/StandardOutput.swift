import Foundation

/// Raw writes to stdout and stderr that survive a reader that went away.
///
/// `FileHandle.write` traps on a write error (`'try!' … Broken pipe`), so `airlock-signer inspect d.txt --json | head -5`
/// used to end with a backtrace. Both executables ignore SIGPIPE (`ignoreBrokenPipe`); a write to a closed stdout then
/// fails with EPIPE, and the command ends quietly with status 0, as `cat` and `git log` do: the reader had what it
/// wanted.
public enum StandardOutput {
    /// Ignores SIGPIPE, so a closed pipe is an error a write sees (EPIPE) instead of a signal that kills the process.
    public static func ignoreBrokenPipe() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `data` to stdout (after what `print` buffered); a closed stdout exits 0 quietly.
    public static func write(_ data: Data) {
        fflush(nil)
        if !writeAll(data, to: STDOUT_FILENO) { readerGone() }
    }

    /// Writes `text` to stdout; see `write(_:)`.
    public static func write(_ text: String) { write(Data(text.utf8)) }

    /// Writes `data` to stdout and ignores a closed stdout (the error report of a failing command keeps its code).
    static func writeKeepingStatus(_ data: Data) {
        fflush(nil)
        _ = writeAll(data, to: STDOUT_FILENO)
    }

    /// Writes `data` to stderr; errors are ignored (there is nowhere left to report them).
    public static func writeError(_ data: Data) {
        _ = writeAll(data, to: STDERR_FILENO)
    }

    /// Flushes what `print` buffered before the process exits.
    ///
    /// A closed stdout exits 0 quietly.
    public static func flush() {
        if fflush(nil) != 0, errno == EPIPE { readerGone() }
    }

    /// Ends the process after stdout's reader closed it: nothing is lost that anyone would read.
    static func readerGone() -> Never {
        _exit(ExitStatus.ok.rawValue)
    }

    /// Writes every byte of `data` to `descriptor`, retrying after EINTR; false on EPIPE or another error.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> Bool {
        data.withUnsafeBytes { raw -> Bool in
            guard var base = raw.baseAddress else { return true }
            var left = raw.count
            while left > 0 {
                let n = Glibc.write(descriptor, base, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                base += n
                left -= n
            }
            return true
        }
    }
}
