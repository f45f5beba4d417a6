import Glibc

/// The one rule every command follows when it writes a file (docs/architecture.md section 2, "Writing files").
///
/// - A new path or an existing regular file is replaced atomically: a temporary file in the same directory
///   (`O_EXCL`), fsync, rename over the target, fsync of the directory. A crash leaves the old file or the new one.
/// - A character device (`/dev/null`, a terminal), a FIFO (a named pipe, `>(gpg -e)`) or a path through `/proc`
///   (`/dev/stdout`, `/dev/fd/N`) is written through: opened for writing and written, never renamed over and never
///   truncated, so the device stays a device and the reader gets the bytes.
/// - A symbolic link is followed to its target, and the rule applies to the target: the link stays a link.
/// - A directory, a block device (a disk) or a socket is refused with a message naming it.
///
/// The vault and the wallet database use `replaceRegularFile` only: they are never special files, and one that is
/// is refused.
public enum FileOutput {
    /// Why a write failed: what was being done, to which path, and the system's reason.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What was being done: `create`, `write`, `rename into place` and the like.
        public let operation: String
        /// The path involved.
        public let path: String
        /// The system's words (`strerror`) or ours.
        public let reason: String
        /// Whether the target exists already and the caller asked not to replace it.
        public let alreadyExists: Bool

        public var description: String { "cannot \(operation) \(path): \(reason)" }
    }

    /// Where the bytes for a path go.
    public enum Destination: Equatable, Sendable {
        /// Replace (or create) this regular file atomically.
        case replace(String)
        /// Open this path for writing and write through it (a device, a FIFO, a `/proc` link).
        case writeThrough(String)
    }

    /// Writes `bytes` to `path` by the rule above; a new or replaced file gets `mode`.
    ///
    /// - Returns: how it was written.
    /// - Throws: `Failure` naming the path and the reason; nothing is left half-written.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(Failure) -> Destination {
        let destination = try self.destination(of: path)
        switch destination {
        case .replace(let target): try replace(bytes, at: target, mode: mode, overwrite: true)
        case .writeThrough(let target): try writeThrough(bytes, to: target)
        }
        return destination
    }

    /// Replaces `path` atomically, refusing anything that is not a regular file or a symbolic link to one.
    ///
    /// The vault's and the database's rule. `overwrite: false` refuses an existing file, checked atomically.
    public static func replaceRegularFile(
        _ bytes: [UInt8], at path: String, mode: mode_t = 0o600, overwrite: Bool
    ) throws(Failure) {
        let destination = try self.destination(of: path)
        guard case .replace(let target) = destination else {
            var info = stat()
            let kind = stat(path, &info) == 0 ? kindName(info.st_mode) : "it is not a regular file"
            throw Failure(operation: "write", path: path, reason: kind, alreadyExists: false)
        }
        try replace(bytes, at: target, mode: mode, overwrite: overwrite)
    }

    /// Checks that `path`, when it exists, is a regular file (or a link to one): the vault's and the database's rule.
    public static func requireRegularFileOrAbsent(_ path: String) throws(Failure) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Failure(operation: "use", path: path, reason: kindName(info.st_mode), alreadyExists: false)
        }
    }

    /// Classifies `path` by the rule above, following symbolic links (at most 40).
    public static func destination(of path: String) throws(Failure) -> Destination {
        guard !path.isEmpty else {
            throw Failure(operation: "write", path: path, reason: "empty path", alreadyExists: false)
        }
        var current = path
        for _ in 0..<40 {
            let (directory, _) = split(current)
            // A path whose directory lies in /proc (/dev/fd → /proc/self/fd) names an open descriptor: write through.
            if let real = realPath(directory), real == "/proc" || real.hasPrefix("/proc/") {
                return .writeThrough(path)
            }
            var info = stat()
            guard lstat(current, &info) == 0 else {
                if errno == ENOENT { return .replace(current) }
                throw failure("inspect", current)
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                return .replace(current)
            case S_IFLNK:
                guard let target = readLink(current) else { throw failure("read the link", current) }
                if target.hasPrefix("/proc/") || target == "/proc" { return .writeThrough(path) }
                current = target.hasPrefix("/") ? target : (directory == "/" ? "/" : directory + "/") + target
            case S_IFCHR, S_IFIFO:
                return .writeThrough(current)
            default:
                throw Failure(
                    operation: "write", path: path,
                    reason: kindName(info.st_mode)
                        + ": Airlock writes regular files, devices such as /dev/null and pipes",
                    alreadyExists: false)
            }
        }
        throw Failure(operation: "write", path: path, reason: "too many levels of symbolic links", alreadyExists: false)
    }

    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "it is a directory"
        case S_IFBLK: "it is a block device (a disk)"
        case S_IFSOCK: "it is a socket"
        case S_IFCHR: "it is a character device"
        case S_IFIFO: "it is a named pipe"
        default: "it is not a regular file"
        }
    }

    /// `(directory, last component)` of a path (`.` for a bare name).
    static func split(_ path: String) -> (String, String) {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return (".", String(trimmed)) }
        let directory = trimmed[..<slash]
        return (directory.isEmpty ? "/" : String(directory), String(trimmed[trimmed.index(after: slash)...]))
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Opens `path` for writing (no create, no truncate) and writes all of `bytes`.
    static func writeThrough(_ bytes: [UInt8], to path: String) throws(Failure) {
        let fd = open(path, O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open for writing", path) }
        defer { close(fd) }
        try writeAll(bytes, to: fd, path: path)
    }

    /// The atomic replacement: temporary file, fsync, rename (or link when `overwrite` is false), directory fsync.
    static func replace(_ bytes: [UInt8], at path: String, mode: mode_t, overwrite: Bool) throws(Failure) {
        let (directory, name) = split(path)
        let suffix = SecureRandom.bytes(8).map { String($0, radix: 16) }.joined()
        let temporary = (directory == "/" ? "/" : directory + "/") + ".\(name).tmp-\(suffix)"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("create", temporary) }
        var committed = false
        defer { if !committed { unlink(temporary) } }
        do {
            defer { close(fd) }
            guard fchmod(fd, mode) == 0 else { throw failure("set the mode of", temporary) }
            try writeAll(bytes, to: fd, path: temporary)
            guard fsync(fd) == 0 else { throw failure("fsync", temporary) }
        }
        if overwrite {
            guard rename(temporary, path) == 0 else { throw failure("rename into place", path) }
        } else {
            guard link(temporary, path) == 0 else {
                let exists = errno == EEXIST
                throw Failure(
                    operation: "create", path: path, reason: String(cString: strerror(errno)), alreadyExists: exists)
            }
            unlink(temporary)
        }
        committed = true
        try syncDirectory(directory)
    }

    /// Fsyncs a directory, so a rename in it survives a power cut.
    public static func syncDirectory(_ directory: String) throws(Failure) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open directory", directory) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("fsync directory", directory) }
    }

    static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("write", path)
            }
            offset += n
        }
    }

    static func failure(_ operation: String, _ path: String) -> Failure {
        Failure(operation: operation, path: path, reason: String(cString: strerror(errno)), alreadyExists: false)
    }
}
