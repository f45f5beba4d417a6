import BitcoinCrypto
import CLISupport
import Foundation

/// Reading secrets (passwords, passphrases, mnemonics) from files and stdin straight into `SecretBytes`.
enum SecretInput {
    /// The first line of `path` (`-` is stdin).
    static func line(fromFile path: String) throws -> SecretBytes {
        try Prompt.secret(fromFile: path)
    }

    /// A whole file (`-` is stdin), at most `limit` bytes (4 KiB unless told), into secret memory.
    static func contents(ofFile path: String, limit: Int = 4096) throws -> SecretBytes {
        let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError(.io, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { if fd != STDIN_FILENO { close(fd) } }
        let buffer = SecretBytes(count: limit)
        var length = 0
        while length < buffer.count {
            let n = buffer.withUnsafeMutableBytes { raw in
                read(fd, raw.baseAddress.map { $0 + length }, raw.count - length)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError(.io, "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            length += n
        }
        return buffer.slice(0..<length)
    }

    /// A new secret asked for twice on the terminal, or read once from `file`.
    static func newSecret(file: String?, prompt: String, what: String) throws -> SecretBytes {
        if let file {
            let secret = try Prompt.secret(fromFile: file)
            guard secret.count > 0 else { throw CLIError(.usage, "the \(what) in \(file) is empty") }
            return secret
        }
        let first = try Prompt.secret(prompt)
        guard first.count > 0 else { throw CLIError(.usage, "the \(what) is empty") }
        let second = try Prompt.secret("Repeat the \(what): ")
        guard first == second else { throw CLIError(.usage, "the two \(what)s differ") }
        return first
    }
}
