import Testing

@testable import QRImage

/// Codes made by encoders that were not written here: the `qrencode` CLI, Python segno and python-qrcode.
@Suite("Interop with other QR encoders")
struct InteropTests {
    @Test("qrencode CLI text output (default 3 px modules)")
    func qrencodeText() throws {
        let bench = try Workbench()
        let text = "UR:CRYPTO-PSBT/1-3/LPADAXCFAXHLCYYNWMEHRFHDCKJOJKIDJYZMADAEJSAOAEAEAEAOJTBKEHIOLG"
        try bench.run("qrencode", ["-o", "cli.png", text])
        #expect(try QRReader().read(contentsOfFile: bench.path("cli.png")).map(\.text) == [text])
    }

    @Test("qrencode CLI 8-bit binary from stdin, level M, 2 px modules")
    func qrencodeBinary() throws {
        let bench = try Workbench()
        var random = TestBytes(seed: 3)
        let payload = random.next(500)
        try bench.run("qrencode", ["-8", "-l", "M", "-s", "2", "-o", "bin.png"], input: payload)
        #expect(try QRReader().read(contentsOfFile: bench.path("bin.png")).map(\.bytes) == [payload])
    }

    @Test("Python segno, binary payload, scale 4, with a transparent light color")
    func segno() throws {
        let bench = try Workbench()
        var random = TestBytes(seed: 4)
        let payload = random.next(200)
        try bench.write(payload, to: "payload.bin")
        try bench.python(
            """
            import sys, segno
            data = open(sys.argv[1], 'rb').read()
            segno.make(data, error='m', micro=False).save(sys.argv[2], scale=4, light=None)
            """, [bench.path("payload.bin"), bench.path("segno.png")])
        #expect(try QRReader().read(contentsOfFile: bench.path("segno.png")).map(\.bytes) == [payload])
    }

    @Test("python-qrcode (PIL 1-bit PNG), text with a BIP21 URI")
    func pythonQRCode() throws {
        let bench = try Workbench()
        let text = "bitcoin:BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ?amount=0.00100000"
        try bench.python(
            """
            import sys, qrcode
            qrcode.make(sys.argv[1]).save(sys.argv[2])
            """, [text, bench.path("pyqr.png")])
        #expect(try QRReader().read(contentsOfFile: bench.path("pyqr.png")).map(\.text) == [text])
    }

    @Test("our PNGs are read by zbarimg, the reference reader")
    func zbarimgReadsOurs() throws {
        let bench = try Workbench()
        var random = TestBytes(seed: 8)
        let text = random.urText(payload: 300)
        try bench.write(try QRCode(text: text).pngData(), to: "ours.png")
        let output = try bench.run("zbarimg", ["-q", "--raw", "ours.png"])
        #expect(String(decoding: output, as: UTF8.self) == text + "\n")
    }
}
