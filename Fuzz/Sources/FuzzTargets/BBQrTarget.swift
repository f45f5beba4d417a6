// FuzzBBQr: feeds libFuzzer input, split at newlines, to the BBQr joiner and to PayloadDecoder; also inflates it as a
// raw deflate body. Any crash, trap or sanitizer report is a bug; thrown errors are expected.
import AirgapTransport

extension FuzzTargets {
    /// One input of FuzzBBQr.
    public static func bbqr(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        var joiner = BBQrJoiner()
        var payload = PayloadDecoder()
        for line in text.split(separator: "\n").prefix(32) {
            _ = try? joiner.receive(String(line))
            // Other text forms are FuzzUR's territory (PayloadDecoder's single-code detection).
            if line.hasPrefix("B$") { _ = try? payload.receive(String(line)) }
        }
        _ = joiner.missingIndexes
        _ = try? payload.result()
        _ = payload.progress
        // A single-part Z series whose body is the input as base32: exercises the zlib inflater on arbitrary data.
        if let split = try? BBQrSplitter(encoding: .base32, versions: 40...40, maxParts: 1).split(
            bytes, fileType: .unicodeText),
            let part = split.parts.first
        {
            var z = BBQrJoiner()
            _ = try? z.receive("B$ZU0100" + part.dropFirst(8))
        }
        // Whatever the splitter makes, the joiner must give back.
        if !bytes.isEmpty, bytes.count < 1024,
            let split = try? BBQrSplitter(versions: 1...10).split(bytes, fileType: .binary)
        {
            var back = BBQrJoiner()
            for part in split.parts.reversed() { _ = try? back.receive(part) }
            precondition(back.result == bytes, "BBQr split/join round trip failed")
        }
    }
}
