import BitcoinCrypto
import Foundation

/// Questions to the user on the terminal; answers to secret questions are read without echo.
public enum Prompt {
    /// Reads a secret (password) from the controlling terminal without echo, after printing `message` on stderr.
    ///
    /// - Throws: `CLIError` (usage) when there is no terminal to ask on; the caller should offer `--password-file`.
    public static func secret(_ message: String) throws -> SecretBytes {
        let fd = open("/dev/tty", O_RDWR)
        guard fd >= 0 else {
            throw CLIError(.usage, "no terminal to ask for the password on; use --password-file")
        }
        defer { close(fd) }
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else {
            throw CLIError(.usage, "cannot switch the terminal off echo; use --password-file")
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        _ = write(fd, message, message.utf8.count)
        guard tcsetattr(fd, TCSAFLUSH, &silent) == 0 else {
            throw CLIError(.usage, "cannot switch the terminal off echo; use --password-file")
        }
        defer { _ = tcsetattr(fd, TCSAFLUSH, &original) }
        return try readLineSecret(fd: fd)
    }

    /// Reads one line from `fd` into secret memory, without the newline; at most 1,024 bytes.
    static func readLineSecret(fd: Int32) throws -> SecretBytes {
        let buffer = SecretBytes(count: 1024)
        var length = 0
        var byte: UInt8 = 0
        while length < buffer.count {
            let n = read(fd, &byte, 1)
            if n <= 0 || byte == UInt8(ascii: "\n") { break }
            if byte == UInt8(ascii: "\r") { continue }
            buffer.withMutableBytes { $0[length] = byte }
            length += 1
        }
        byte = 0
        return buffer.slice(0..<length)
    }

    /// One line of standard input into secret memory, without its newline; nil at the end of input.
    ///
    /// It is read through C stdio as `readLine` does, so the two can be mixed. At most 1,024 bytes are kept.
    public static func secretLineFromStandardInput() -> SecretBytes? {
        let buffer = SecretBytes(count: 1024)
        var length = 0
        var sawAnything = false
        while true {
            let next = getchar()
            if next == EOF { break }
            sawAnything = true
            if next == 0x0A { break }
            if next == 0x0D || length == buffer.count { continue }
            buffer.withMutableBytes { $0[length] = UInt8(truncatingIfNeeded: next) }
            length += 1
        }
        return sawAnything ? buffer.slice(0..<length) : nil
    }

    /// Reads a password from `path` (`-` is stdin): the first line, without its newline.
    public static func secret(fromFile path: String) throws -> SecretBytes {
        if path == "-" { return try readLineSecret(fd: STDIN_FILENO) }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw CLIError(.io, "cannot open password file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        return try readLineSecret(fd: fd)
    }

    /// Asks a yes/no question on stderr and reads the answer from the terminal (or stdin when it is not one).
    public static func confirm(_ question: String) -> Bool {
        // The answer is typed on the question's line; read from a pipe it is not echoed, so end the line here.
        StandardOutput.writeError(Data((question + " [y/N] ").utf8))
        let answer = readLine(strippingNewline: true)
        if isatty(STDIN_FILENO) != 1 { StandardOutput.writeError(Data("\n".utf8)) }
        guard let answer else { return false }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// Asks a yes/no question on stderr and reads the answer from the controlling terminal (`/dev/tty`), for when
    /// standard input carried the request; nil when there is no terminal.
    public static func confirmOnTerminal(_ question: String) -> Bool? {
        let fd = open("/dev/tty", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        Diagnostics.print(question + " [y/N] ")
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 64, read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            if byte != UInt8(ascii: "\r") { bytes.append(byte) }
        }
        let answer = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespaces).lowercased()
        return ["y", "yes"].contains(answer)
    }

    /// Asks for one line of text on stderr and reads it from stdin.
    public static func line(_ question: String) -> String? {
        StandardOutput.writeError(Data(question.utf8))
        return readLine(strippingNewline: true)
    }
}

extension SecretBytes {
    fileprivate func withMutableBytes(_ body: (UnsafeMutableRawBufferPointer) -> Void) {
        withUnsafeMutableBytes { body($0) }
    }
}
