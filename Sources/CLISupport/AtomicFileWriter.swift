import BitcoinCrypto
import Glibc

/// Writes output files by the one rule of `FileOutput` (docs/architecture.md section 2, "Writing files"): a new or
/// regular file is replaced atomically (a crash leaves the old file or the new one, never half of one); a device, a
/// FIFO or `/dev/stdout` is written through and stays what it is; a symbolic link is followed to its target.
public enum AtomicFileWriter {
    /// Writes `bytes` to `path` with `mode` (default 0644) when a file is created or replaced.
    ///
    /// - Throws: `CLIError` (I/O) naming the path and the system's reason.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        do { try FileOutput.write(bytes, to: path, mode: mode) } catch { throw CLIError(.io, error.description) }
    }
}
