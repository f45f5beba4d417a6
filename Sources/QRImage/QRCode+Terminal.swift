extension QRCode {
    /// Draws the code with UTF-8 half blocks, two module rows a text line, like `qrencode -t ansiutf8`.
    ///
    /// With `ansiColors` (the default) every line sets bright white foreground on black background (`ESC[40;37;1m`) and
    /// draws the light modules, so the code is dark on light whatever the terminal's theme; each line ends with a
    /// reset (`ESC[0m`). Without it, dark modules are drawn as blocks, for a terminal with dark text on a light
    /// background. Lines end with `\n`.
    ///
    /// - Throws: `QRImageError.invalidParameter` for a margin outside 0...64.
    public func terminalString(margin: Int = QRCode.defaultMargin, ansiColors: Bool = true) throws(QRImageError)
        -> String
    {
        guard (0...64).contains(margin) else { throw .invalidParameter(name: "margin", value: margin) }
        let side = size + 2 * margin
        // In ANSI mode blocks are light modules (white foreground); in plain mode blocks are dark modules.
        func inked(_ column: Int, _ row: Int) -> Bool {
            let dark = isDark(x: column - margin, y: row - margin)
            return ansiColors ? !dark : dark
        }
        var output = ""
        output.reserveCapacity((side + 12) * (side / 2 + 1) * 3)
        for row in stride(from: 0, to: side, by: 2) {
            if ansiColors { output += "\u{1B}[40;37;1m" }
            for column in 0..<side {
                let top = inked(column, row)
                // An odd last row is paired with a row of quiet zone.
                let bottom = row + 1 < side ? inked(column, row + 1) : ansiColors
                switch (top, bottom) {
                case (true, true): output += "\u{2588}"
                case (true, false): output += "\u{2580}"
                case (false, true): output += "\u{2584}"
                case (false, false): output += " "
                }
            }
            if ansiColors { output += "\u{1B}[0m" }
            output += "\n"
        }
        return output
    }
}

extension QRCode {
    /// The code's lines for a full-screen display: half blocks as in `terminalString` (bright white on black, light
    /// modules inked, so it reads dark on light on any theme), each module `scale` columns wide and `scale` half
    /// lines high, with a quiet zone of `margin` modules; no line ends or resets (the caller places each line).
    ///
    /// - Returns: `(size + 2 * margin) * scale / 2` lines (rounded up) of `(size + 2 * margin) * scale` characters.
    public func halfBlockLines(scale: Int, margin: Int = QRCode.defaultMargin) -> [String] {
        let scale = max(1, scale)
        let margin = max(0, margin)
        let side = (size + 2 * margin) * scale
        // A pixel is light (inked) outside the code or on a light module.
        func light(_ x: Int, _ y: Int) -> Bool {
            guard y < side else { return true }
            return !isDark(x: x / scale - margin, y: y / scale - margin)
        }
        var lines: [String] = []
        lines.reserveCapacity(side / 2 + 1)
        for row in stride(from: 0, to: side, by: 2) {
            var line = ""
            line.reserveCapacity(side * 3)
            for column in 0..<side {
                switch (light(column, row), light(column, row + 1)) {
                case (true, true): line += "\u{2588}"
                case (true, false): line += "\u{2580}"
                case (false, true): line += "\u{2584}"
                case (false, false): line += " "
                }
            }
            lines.append(line)
        }
        return lines
    }
}
