import BitcoinCrypto
import Foundation

/// Crash-safe file replacement for the vault.
///
/// `BitcoinCrypto.FileOutput.replaceRegularFile`: the new content goes to a temporary file in the same directory (created with `O_EXCL`, mode 0600), is fsynced, then renamed over the target
/// (or hard-linked, when the target must not exist), and the directory is fsynced. A vault path that is a device, a
/// pipe or a directory is refused; a symbolic link to a regular file is followed and the link kept.
///
/// After a crash at any moment the target holds the old or the new content.
package enum AtomicFile {
    /// Writes `bytes` to `path`.
    ///
    /// - Parameters:
    ///   - bytes: the new content.
    ///   - path: the target file.
    ///   - overwrite: replace an existing file; when false an existing file is an error (checked atomically).
    ///   - mode: the permission bits of the new file.
    /// - Throws: `VaultError.alreadyExists` or `.io`.
    package static func write(
        _ bytes: [UInt8], to path: String, overwrite: Bool, mode: mode_t = 0o600
    ) throws(VaultError) {
        do {
            try FileOutput.replaceRegularFile(bytes, at: path, mode: mode, overwrite: overwrite)
        } catch {
            if error.alreadyExists { throw .alreadyExists(path: path) }
            throw .io(operation: error.operation, path: error.path, reason: error.reason)
        }
    }

    /// Fsyncs a directory, so a rename in it survives a power cut.
    package static func syncDirectory(_ directory: String) throws(VaultError) {
        do { try FileOutput.syncDirectory(directory) } catch {
            throw .io(operation: error.operation, path: error.path, reason: error.reason)
        }
    }

    /// Creates `directory` and its parents with mode 0700 when missing.
    package static func ensureDirectory(_ directory: String) throws(VaultError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .io(operation: "use", path: directory, reason: "not a directory") }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .io(operation: "create directory", path: directory, reason: error.localizedDescription)
        }
    }

    /// Reads a whole file.
    ///
    /// - Throws: `VaultError.notFound` or `.io`.
    package static func read(_ path: String) throws(VaultError) -> [UInt8] {
        // A vault is never a device or a pipe (reading a FIFO would wait forever, /dev/zero would never end).
        do { try FileOutput.requireRegularFileOrAbsent(path) } catch {
            throw .io(operation: "read", path: path, reason: error.reason + ": a vault is a regular file")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw .notFound(path: path) }
            throw io("open", path)
        }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw io("read", path)
            }
            if n == 0 { break }
            out += buffer[0..<n]
            guard out.count <= 16 << 20 else { throw .corrupt(reason: "\(path) is larger than 16 MiB") }
        }
        return out
    }

    static func io(_ operation: String, _ path: String) -> VaultError {
        .io(operation: operation, path: path, reason: String(cString: strerror(errno)))
    }
}
