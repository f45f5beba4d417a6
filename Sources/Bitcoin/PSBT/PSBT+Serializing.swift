import Codecs
import Foundation

extension PSBT {
    /// The binary PSBT: magic, global map, input maps, output maps (each record byte for byte as held).
    public func serialized() -> [UInt8] {
        var writer = ByteWriter()
        writer.write(Self.magic)
        global.encode(to: &writer)
        for input in inputs { input.map.encode(to: &writer) }
        for output in outputs { output.map.encode(to: &writer) }
        return writer.bytes
    }

    /// The PSBT as base64 text.
    public var base64String: String { Base64.encode(serialized()) }
}
