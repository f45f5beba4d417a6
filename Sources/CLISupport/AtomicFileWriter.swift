import Foundation

/// Writes output files so that a crash leaves the old file or the new one, never half of one: a temporary file in
/// the same directory (`O_EXCL`), fsync, rename over the target, fsync of the directory.
public enum AtomicFileWriter {
    /// Writes `bytes` to `path` with `mode` (default 0644; the vault uses 0600).
    ///
    /// - Throws: `CLIError` (I/O) naming the path and the system's reason.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let suffix = (0..<8).map { _ in String(UInt8.random(in: 0...255), radix: 16) }.joined()
        let temporary = (directory as NSString).appendingPathComponent(".\(url.lastPathComponent).tmp-\(suffix)")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("create", temporary) }
        var committed = false
        defer { if !committed { unlink(temporary) } }
        do {
            defer { close(fd) }
            guard fchmod(fd, mode) == 0 else { throw failure("set the mode of", temporary) }
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw failure("write", temporary)
                }
                offset += n
            }
            guard fsync(fd) == 0 else { throw failure("fsync", temporary) }
        }
        guard rename(temporary, path) == 0 else { throw failure("rename into place", path) }
        committed = true
        let dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dirFD >= 0 else { throw failure("open directory", directory) }
        defer { close(dirFD) }
        guard fsync(dirFD) == 0 else { throw failure("fsync directory", directory) }
    }

    private static func failure(_ operation: String, _ path: String) -> CLIError {
        CLIError(.io, "cannot \(operation) \(path): \(String(cString: strerror(errno)))")
    }
}
