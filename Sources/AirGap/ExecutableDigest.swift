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
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
        }
        return Hex.encode(hash.finalize())
    }
}
