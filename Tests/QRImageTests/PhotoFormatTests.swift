import Testing

@testable import QRImage

/// JPEG photos and GIF animations, made by tools not written here: segno draws the codes, ImageMagick composites them
/// onto a photo-like background (perspective, blur, low contrast, tint, JPEG compression) or animates them.
@Suite("JPEG and GIF images")
struct PhotoFormatTests {
    /// A photo of a screen or of paper: how the code was degraded, as ImageMagick arguments applied to the code.
    struct Photo: Sendable, CustomTestStringConvertible {
        let name: String
        let degrade: [String]
        let quality: Int
        var testDescription: String { name }
    }

    static let photos: [Photo] = [
        Photo(name: "clean JPEG at quality 90", degrade: [], quality: 90),
        Photo(name: "blur 1.5 px, quality 50", degrade: ["-gaussian-blur", "0x1.5"], quality: 50),
        Photo(
            name: "perspective ~8°, blur 1 px, quality 60",
            degrade: [
                "-virtual-pixel", "white", "-distort", "Perspective",
                "0,0 20,0  499,0 470,30  0,499 0,480  499,499 499,499", "-gaussian-blur", "0x1",
            ],
            quality: 60),
        Photo(
            name: "contrast down to 60% on a tinted background, quality 60",
            degrade: ["+level", "20%,80%", "-fill", "#d8c8a0", "-tint", "60"], quality: 60),
        Photo(
            name: "rotated 7°, glare and noise, quality 60",
            degrade: [
                "-background", "white", "-rotate", "7",
                "(", "-size", "560x560", "radial-gradient:rgba(255,255,255,0.6)-rgba(255,255,255,0)", ")",
                "-geometry", "-180-180", "-compose", "over", "-composite", "-attenuate", "0.3", "+noise", "Gaussian",
            ],
            quality: 60),
    ]

    @Test("a segno code photographed onto a background decodes from the JPEG", arguments: photos)
    func jpegPhoto(photo: Photo) throws {
        let bench = try Workbench()
        var random = TestBytes(seed: 11)
        let payload = random.urText(payload: 60)
        try bench.python(
            """
            import sys, segno
            segno.make(sys.argv[1], error='m', micro=False).save(sys.argv[2], scale=8, border=4)
            """, [payload, bench.path("code.png")])
        try bench.convert(
            ["code.png", "-resize", "500x500!"] + photo.degrade + [
                "-bordercolor", "#8a7f70", "-border", "60", "-quality", String(photo.quality), "photo.jpg",
            ])
        let codes = try QRReader().read(contentsOfFile: bench.path("photo.jpg"))
        #expect(codes.map(\.text) == [payload])
    }

    @Test("every frame of an animated GIF from ImageMagick is read, in any order, with duplicates")
    func animatedGIF() throws {
        let bench = try Workbench()
        var random = TestBytes(seed: 12)
        let parts = (1...6).map { random.urText(payload: 40, part: $0, of: 6) }
        for (index, part) in parts.enumerated() {
            try bench.python(
                """
                import sys, segno
                segno.make(sys.argv[1], error='l', version=6, micro=False).save(sys.argv[2], scale=5)
                """, [part, bench.path(String(format: "f%02d.png", index))])
        }
        // Shuffled, one frame twice; ImageMagick's optimizer turns later frames into partial, transparent overlays.
        let order = [3, 0, 5, 1, 1, 4, 2]
        try bench.convert(
            ["-delay", "25", "-loop", "0"] + order.map { String(format: "f%02d.png", $0) } + [
                "-layers", "optimize", "animation.gif",
            ])
        let texts = try QRReader().read(contentsOfFile: bench.path("animation.gif")).map(\.text)
        #expect(texts == [3, 0, 5, 1, 4, 2].map { parts[$0] })
    }

    @Test("a still GIF reads like a PNG")
    func stillGIF() throws {
        let bench = try Workbench()
        let text = "bitcoin:bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080?amount=0.5"
        try bench.run("qrencode", ["-s", "4", "-o", "code.png", text])
        try bench.convert(["code.png", "code.gif"])
        #expect(try QRReader().read(contentsOfFile: bench.path("code.gif")).map(\.text) == [text])
    }

    @Test("broken JPEG and GIF files and other data are refused with a reason")
    func badImages() throws {
        let bench = try Workbench()
        try bench.run("qrencode", ["-s", "4", "-o", "code.png", "hello"])
        try bench.convert(["code.png", "code.jpg"])
        try bench.convert(["code.png", "code.gif"])
        let jpeg = try bench.read("code.jpg")
        let gif = try bench.read("code.gif")
        let reader = try QRReader()
        #expect {
            try reader.read(image: Array(jpeg.prefix(jpeg.count / 3)))
        } throws: { error in
            guard case .invalidJPEG(let message)? = error as? QRImageError else { return false }
            return !message.isEmpty
        }
        #expect {
            try reader.read(image: Array(gif.prefix(gif.count / 2)))
        } throws: { error in
            if case .invalidGIF? = error as? QRImageError { return true }
            return false
        }
        #expect(throws: QRImageError.notAnImage(prefix: Array("not an i".utf8))) {
            try reader.read(image: Array("not an image".utf8))
        }
        let small = try QRReader(maxPixels: 100)
        #expect {
            try small.read(image: jpeg)
        } throws: { error in
            if case .imageTooLarge? = error as? QRImageError { return true }
            return false
        }
        #expect {
            try small.read(image: gif)
        } throws: { error in
            if case .imageTooLarge? = error as? QRImageError { return true }
            return false
        }
        // Control: the same files, whole, decode.
        #expect(try reader.read(image: jpeg).map(\.text) == ["hello"])
        #expect(try reader.read(image: gif).map(\.text) == ["hello"])
    }

    @Test("a GIF with no code in any frame says so")
    func gifWithoutCode() throws {
        let bench = try Workbench()
        try bench.convert(["-size", "64x64", "xc:white", "xc:gray", "-delay", "10", "blank.gif"])
        #expect {
            try QRReader().read(contentsOfFile: bench.path("blank.gif"))
        } throws: { error in
            if case .noCodeFound? = error as? QRImageError { return true }
            return false
        }
    }
}
