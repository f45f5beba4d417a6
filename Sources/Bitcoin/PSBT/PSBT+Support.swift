extension Transaction {
    /// Parses the legacy (non-witness) serialization only, as BIP174 stores the unsigned transaction: a zero input
    /// count is read as such, not as a segwit marker.
    ///
    /// - Throws: `EncodingError` for truncated data or trailing bytes.
    init(legacySerialized bytes: [UInt8]) throws(EncodingError) {
        var reader = ByteReader(bytes)
        let version = try reader.readInt32()
        let inputCount = try reader.readCount(minimumItemSize: TxIn.minimumSize)
        var inputs: [TxIn] = []
        inputs.reserveCapacity(inputCount)
        for _ in 0..<inputCount { inputs.append(try TxIn(from: &reader)) }
        let outputCount = try reader.readCount(minimumItemSize: TxOut.minimumSize)
        var outputs: [TxOut] = []
        outputs.reserveCapacity(outputCount)
        for _ in 0..<outputCount { outputs.append(try TxOut(from: &reader)) }
        let lockTime = LockTime(rawValue: try reader.readUInt32())
        guard reader.isAtEnd else { throw .trailingBytes(count: reader.remainingCount) }
        self.init(version: version, inputs: inputs, outputs: outputs, lockTime: lockTime)
    }
}

extension KeyOrigin {
    /// Decodes a PSBT key origin: 4-byte fingerprint then little-endian 32-bit path indexes; nil for a length that is
    /// zero or not a multiple of 4.
    public init?(psbtBytes bytes: [UInt8]) {
        guard bytes.count >= 4, bytes.count % 4 == 0, bytes.count / 4 - 1 <= DerivationPath.maxDepth else { return nil }
        guard let fingerprint = try? Fingerprint(serialized: bytes[0..<4]) else { return nil }
        var components: [ChildNumber] = []
        var offset = 4
        while offset < bytes.count {
            let raw =
                UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                | UInt32(bytes[offset + 3]) << 24
            components.append(ChildNumber(rawValue: raw))
            offset += 4
        }
        guard let path = try? DerivationPath(components) else { return nil }
        self.init(fingerprint: fingerprint, path: path)
    }

    /// The PSBT encoding: fingerprint then little-endian indexes.
    var psbtBytes: [UInt8] {
        var out = fingerprint.serialized()
        for component in path.components { out += PSBT.uint32Bytes(component.rawValue) }
        return out
    }
}

extension SighashType {
    /// Whether an ECDSA signature's sighash byte is one Bitcoin Core's STRICTENC accepts (ALL, NONE, SINGLE, each with
    /// or without ANYONECANPAY).
    static func isDefinedForECDSA(_ byte: UInt32) -> Bool {
        let base = byte & ~anyoneCanPayFlag
        return base >= 1 && base <= 3
    }
}
