import Testing

@testable import QRImage

/// UTF-8 half-block terminal rendering, compared with `qrencode -t ansiutf8` and read back by zbar.
@Suite("Terminal rendering")
struct TerminalTests {
    @Test(
        "matches qrencode -t ansiutf8 byte for byte", arguments: ["HELLO", "UR:BYTES/HDCXLKAHSSQZWFVSLOFZOYCA", "a1"])
    func matchesQrencode(text: String) throws {
        let bench = try Workbench()
        let reference = try bench.run("qrencode", ["-t", "ansiutf8", "-l", "L", "-m", "4", text])
        #expect(try QRCode(text: text).terminalString() == String(decoding: reference, as: UTF8.self))
    }

    @Test("two module rows per line, quiet zone included, and the drawing decodes", arguments: [true, false])
    func decodesFromText(ansi: Bool) throws {
        var random = TestBytes(seed: 21)
        let payload = random.next(120)
        let code = try QRCode(bytes: payload)
        let margin = 4
        let rendered = try code.terminalString(margin: margin, ansiColors: ansi)
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let side = code.size + 2 * margin
        #expect(lines.count == (side + 1) / 2)
        // Paint the characters back into modules (4 px each) and let zbar read the picture.
        var image = GrayImage(width: side * 4, height: lines.count * 8, filledWith: 255)
        for (row, line) in lines.enumerated() {
            let cells = Array(line.replacing("\u{1B}[40;37;1m", with: "").replacing("\u{1B}[0m", with: ""))
            #expect(cells.count == side)
            for (column, cell) in cells.enumerated() {
                let (top, bottom): (Bool, Bool) =
                    switch cell {
                    case "\u{2588}": (true, true)
                    case "\u{2580}": (true, false)
                    case "\u{2584}": (false, true)
                    default: (false, false)
                    }
                // ANSI mode draws light modules; plain mode draws dark ones.
                for (half, inked) in [(0, top), (1, bottom)] where inked != ansi {
                    image.fill(x: column * 4, y: (row * 2 + half) * 4, width: 4, height: 4, value: 0)
                }
                #expect((top != ansi) == code.isDark(x: column - margin, y: row * 2 - margin))
            }
        }
        #expect(try QRReader().read(png: image.pngData()).map(\.bytes) == [payload])
    }

    @Test("a margin outside 0...64 is refused")
    func badMargin() throws {
        #expect(throws: QRImageError.invalidParameter(name: "margin", value: 65)) {
            try QRCode(text: "A").terminalString(margin: 65)
        }
    }
}
