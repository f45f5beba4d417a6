import CLISupport
import Foundation

/// Plain files (labels, backups) read from a path or `-` (stdin) and written atomically; data that may come as QR
/// codes goes through CLISupport.InputReader.
enum LocalFiles {
    /// The bytes of `path`, or of stdin for `-`.
    static func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError(.io, "no such file: \(path)") }
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError(.io, "cannot read \(path)") }
        return data
    }

    /// The text of `path` (or stdin), which must be UTF-8.
    static func text(_ path: String) throws -> String {
        guard let text = String(data: try read(path), encoding: .utf8) else {
            throw CLIError(.invalidInput, "\(path) is not UTF-8 text")
        }
        return text
    }

    /// Writes `data` to `path` atomically (temporary file, fsync, rename), with `mode`: backups hold the node URL
    /// with any RPC credentials, so they are written 0600.
    static func write(_ data: Data, to path: String, mode: mode_t = 0o644) throws {
        try AtomicFileWriter.write([UInt8](data), to: path, mode: mode)
    }
}
