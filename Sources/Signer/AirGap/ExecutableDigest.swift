import BitcoinCrypto
import Codecs
import Foundation

/// The SHA-256 of the running executable, read through `/proc/self/exe`, for `airlock-signer selftest`: the user
/// compares it on the offline machine with the published SHA256SUMS of a reproducible build (docs/reproducible.md).
public enum ExecutableDigest {
    /// The running executable on Linux: the file the kernel mapped, whatever name started it.
    public static let ownExecutable = "/proc/self/exe"

    /// The lower-case hex SHA-256 of the file at `path`, read in 1 MiB pieces; nil when it cannot be read.
    public static func sha256(ofFileAt path: String = ownExecutable) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hash = SHA256()
        while true {
            guard let piece = try? handle.read(upToCount: 1 << 20) else { return nil }
            if piece.isEmpty { break }
            piece.withUnsafeBytes { hash.update($0) }
        }
        return Hex.encode(hash.finalize())
    }
}
