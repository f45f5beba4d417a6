import Foundation
import QRImage

/// The answer shown as a full-screen animated QR code on the terminal (`sign --show`), as SeedSigner or Keystone show
/// theirs for the coordinator's camera: each code as large as the terminal allows (half blocks, so a module is about
/// square), a header with what the frames carry and the frame counter ("Airlock · signed PSBT 1a2b3c4d · 3/12"), and
/// a hint; cycling until a key is pressed.
///
/// The terminal (`/dev/tty`, so it works whatever stdin and stdout are) is put in raw mode on the alternate screen with
/// the cursor hidden, and restored when a key ends it, on an error, and on SIGINT, SIGTERM, SIGHUP or SIGQUIT (the
/// handler restores it, then the signal ends the process as it would have). The screen is measured again for every
/// frame, so resizing the window takes effect at once.
public struct FullScreenQR {
    /// The codes, shown in turn.
    public let codes: [QRCode]
    /// What they carry (the header shows its first line without the part).
    public let caption: FrameCaption
    /// Frames a second.
    public let framesPerSecond: Int

    /// The line under the code.
    public static let hint = "Scan with the coordinator's camera · any key stops"

    public init(codes: [QRCode], caption: FrameCaption, framesPerSecond: Int) {
        self.codes = codes
        self.caption = caption
        self.framesPerSecond = max(1, framesPerSecond)
    }

    /// Why `--show` cannot draw here (no terminal to open), or nil when it can.
    public static func terminalProblem() -> String? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return "--show needs a terminal to draw on (none is attached); use --qr PATH.gif instead" }
        close(fd)
        return nil
    }

    /// The largest whole number of characters a module can take so a code of `side` modules (quiet zone included)
    /// fits `columns` × `rows` with the header and the hint; 0 when even one does not fit.
    public static func scale(side: Int, columns: Int, rows: Int) -> Int {
        guard side > 0 else { return 0 }
        let lines = rows - 2  // the header and the hint
        return max(0, min(columns / side, (2 * lines) / side))
    }

    /// The screen's lines for frame `part` (from 1) of `count`: the header, the code centred, the hint; each at most
    /// `columns` characters wide (ANSI colours aside), at most `rows` lines.
    public static func screen(
        code: QRCode, part: Int, of count: Int, caption: FrameCaption, columns: Int, rows: Int
    ) -> [String] {
        let header = caption.line(part: 1, of: 1) + " · \(part)/\(count)"
        let side = code.size + 2 * QRCode.defaultMargin
        let scale = scale(side: side, columns: columns, rows: rows)
        var body: [String]
        if scale == 0 {
            let lines = (side + 1) / 2 + 2
            body = [
                "",
                "Make the terminal larger: the code needs \(side) × \(lines) characters (now \(columns) × \(rows)).",
            ]
        } else {
            let pad = String(repeating: " ", count: (columns - side * scale) / 2)
            body = code.halfBlockLines(scale: scale).map { pad + "\u{1B}[40;37;1m" + $0 + "\u{1B}[0m" }
        }
        let free = max(0, rows - 2 - body.count)
        body = Array(repeating: "", count: free / 2) + body + Array(repeating: "", count: free - free / 2)
        return [centred(header, columns)] + body + [centred(hint.count <= columns ? hint : "any key stops", columns)]
    }

    /// `text` cut to `columns` characters and centred in them.
    static func centred(_ text: String, _ columns: Int) -> String {
        let cut = String(text.prefix(max(0, columns)))
        return String(repeating: " ", count: max(0, (columns - cut.count) / 2)) + cut
    }

    /// Shows the codes until a key is pressed.
    ///
    /// - Throws: `CLIError` usage (1) when no terminal can be opened.
    public func run() throws {
        guard !codes.isEmpty else { return }
        let terminal = try RawTerminal.open()
        defer { terminal.restore() }
        var index = 0
        while true {
            let (columns, rows) = terminal.size()
            let lines = Self.screen(
                code: codes[index], part: index + 1, of: codes.count, caption: caption, columns: columns, rows: rows)
            terminal.write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
            if terminal.waitForKey(milliseconds: Int32(1000 / framesPerSecond)) { return }
            index = (index + 1) % codes.count
        }
    }
}

/// The controlling terminal in raw mode on the alternate screen, for `FullScreenQR`.
struct RawTerminal {
    let fd: Int32
    let saved: termios
    /// The handlers of `signals` before, put back by `restore`.
    let previousHandlers: [__sighandler_t?]

    /// Enters the alternate screen and hides the cursor.
    static let enter: StaticString = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J"
    /// Shows the cursor and leaves the alternate screen (what was on the screen before comes back).
    static let leave: StaticString = "\u{1B}[?25h\u{1B}[?1049l"
    /// The signals after which the terminal is restored before the process ends.
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func open() throws -> RawTerminal {
        let fd = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            throw CLIError(.usage, "--show needs a terminal to draw on (none is attached); use --qr PATH.gif instead")
        }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else {
            close(fd)
            throw CLIError(.usage, "--show needs a terminal to draw on; use --qr PATH.gif instead")
        }
        var raw = saved
        // No line editing, no echo; Ctrl-C and Ctrl-Z are keys like any other (they end the display).
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        activeTerminal = (fd, saved)
        let previous = signals.map { Glibc.signal($0, restoreTerminalAndEnd) }
        let terminal = RawTerminal(fd: fd, saved: saved, previousHandlers: previous)
        tcsetattr(fd, TCSAFLUSH, &raw)
        terminal.write(enter)
        return terminal
    }

    /// The terminal's size in characters (80 × 24 when it does not say).
    func size() -> (columns: Int, rows: Int) {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return (80, 24) }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw in
                raw.baseAddress.map { Glibc.write(fd, $0 + done, raw.count - done) } ?? 0
            }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return }
            done += n
        }
    }

    func write(_ text: StaticString) {
        _ = Glibc.write(fd, text.utf8Start, text.utf8CodeUnitCount)
    }

    /// Waits up to `milliseconds` for a key; true (the pending input read and dropped) when one was pressed.
    func waitForKey(milliseconds: Int32) -> Bool {
        var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, milliseconds) > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 64)
        _ = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return true
    }

    /// Back to the screen and the mode the terminal had.
    func restore() {
        write(Self.leave)
        var mode = saved
        tcsetattr(fd, TCSAFLUSH, &mode)
        activeTerminal = nil
        for (signal, handler) in zip(Self.signals, previousHandlers) { Glibc.signal(signal, handler) }
        close(fd)
    }
}

/// The terminal to restore from a signal handler (plain values: nothing is allocated or retained there).
nonisolated(unsafe) private var activeTerminal: (fd: Int32, saved: termios)?

/// Restores the terminal, then lets the signal do what it would have done.
private func restoreTerminalAndEnd(_ signal: Int32) {
    if let (fd, saved) = activeTerminal {
        _ = Glibc.write(fd, RawTerminal.leave.utf8Start, RawTerminal.leave.utf8CodeUnitCount)
        var mode = saved
        tcsetattr(fd, TCSANOW, &mode)
    }
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}
