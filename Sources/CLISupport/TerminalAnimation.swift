import Foundation
import QRImage

/// Cycles QR codes in place on the terminal, as a hardware wallet's screen shows a multi-part payload, until a key is
/// pressed: the offline machine's screen becomes the animated code a phone wallet scans.
///
/// The terminal is put in non-canonical, no-echo mode while it runs (restored afterwards, also on a signal-free
/// error path); each frame is drawn from the top-left corner of the screen (`ESC[H`, `ESC[J`).
struct TerminalAnimation {
    let codes: [QRCode]
    let framesPerSecond: Int

    /// Runs until a key is pressed on the terminal.
    ///
    /// - Throws: `CLIError` (usage) when standard input is not a terminal (nothing could stop the animation).
    func run() throws {
        guard isatty(STDIN_FILENO) == 1 else {
            throw CLIError(.usage, "--animate needs a terminal to stop it with a key; use --qr PATH.gif instead")
        }
        var drawn: [String] = []
        for (n, code) in codes.enumerated() {
            do {
                let label = codes.count > 1 ? "part \(n + 1)/\(codes.count) — press any key to stop\n" : ""
                drawn.append(label + (try code.terminalString()))
            } catch {
                throw CLIError(.invalidInput, "cannot draw the QR code: \(error)")
            }
        }
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        defer {
            tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            StandardOutput.write(Data("\n".utf8))
        }
        let interval = Int32(1000 / framesPerSecond)
        var index = 0
        while true {
            StandardOutput.write(Data(("\u{1B}[H\u{1B}[J" + drawn[index]).utf8))
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, interval) > 0 {
                var byte: UInt8 = 0
                _ = read(STDIN_FILENO, &byte, 1)
                return
            }
            index = (index + 1) % drawn.count
        }
    }
}
