import Bitcoin
import BitcoinCrypto

/// An 80-byte block header, with the checks an SPV client makes: proof of work against its own `bits`, the
/// network's proof-of-work limit, and the link to the previous header.
public struct BlockHeader: Sendable, Equatable {
    /// The 80 serialized bytes.
    public let bytes: [UInt8]

    /// Parses 80 bytes.
    ///
    /// - Throws: `ChainError.verificationFailed` when the length is not 80.
    public init(serialized bytes: [UInt8]) throws(ChainError) {
        guard bytes.count == 80 else { throw .verificationFailed("a block header of \(bytes.count) bytes, not 80") }
        self.bytes = bytes
    }

    /// Parses hex text.
    ///
    /// - Throws: `ChainError.protocolViolation` for bad hex, `.verificationFailed` for a wrong length.
    public init(hex: String) throws(ChainError) {
        guard let bytes = try? [UInt8](hex: hex) else { throw .protocolViolation("block header is not hex") }
        try self.init(serialized: bytes)
    }

    /// The block hash in internal byte order.
    public var hash: [UInt8] { SHA256.doubleHash(bytes) }
    /// The block hash as shown by explorers (reversed).
    public var hashHex: String { hash.reversed().hexString }
    /// The previous block's hash, internal byte order.
    public var previousHash: [UInt8] { Array(bytes[4..<36]) }
    /// The merkle root, internal byte order.
    public var merkleRoot: [UInt8] { Array(bytes[36..<68]) }
    /// The compact target.
    public var bits: UInt32 { Self.readUInt32(bytes, 72) }

    private static func readUInt32(_ b: [UInt8], _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }

    /// The 256-bit target of compact `bits`, big-endian; nil when negative, zero or overflowing.
    public static func target(bits: UInt32) -> [UInt8]? {
        let exponent = Int(bits >> 24)
        let mantissa = bits & 0x007f_ffff
        guard bits & 0x0080_0000 == 0, mantissa != 0 else { return nil }
        var target = [UInt8](repeating: 0, count: 32)
        let mantissaBytes = [UInt8(mantissa >> 16 & 0xff), UInt8(mantissa >> 8 & 0xff), UInt8(mantissa & 0xff)]
        // target = mantissa * 256^(exponent-3): the mantissa's last byte sits at big-endian index 32 - exponent + 2.
        for (i, byte) in mantissaBytes.enumerated() where byte != 0 {
            let index = 32 - exponent + i
            guard index >= 0 else { return nil }
            if index < 32 { target[index] = byte }
        }
        return target
    }

    /// The largest target (easiest work) a header on `network` may claim.
    public static func powLimitBits(_ network: Network) -> UInt32 {
        switch network {
        case .main, .test: 0x1d00_ffff
        case .signet: 0x1e03_77ae
        case .regtest: 0x207f_ffff
        }
    }

    /// Checks that the hash meets the header's own target and that the target is within the network's limit.
    ///
    /// - Throws: `ChainError.verificationFailed` naming the header's height when given.
    public func verifyProofOfWork(network: Network, height: Int? = nil) throws(ChainError) {
        let place = height.map { " at height \($0)" } ?? ""
        guard let target = Self.target(bits: bits), let limit = Self.target(bits: Self.powLimitBits(network)) else {
            throw .verificationFailed("header\(place) has an invalid target (bits \(String(bits, radix: 16)))")
        }
        guard !limit.lexicographicallyPrecedes(target) else {
            throw .verificationFailed("header\(place) claims less work than the network allows")
        }
        let value = Array(hash.reversed())
        guard !target.lexicographicallyPrecedes(value) else {
            throw .verificationFailed("header\(place) does not meet its proof-of-work target")
        }
    }

    /// Checks that this header builds on `previous`.
    ///
    /// - Throws: `ChainError.verificationFailed`.
    public func verifyLink(to previous: BlockHeader, height: Int) throws(ChainError) {
        guard previousHash == previous.hash else {
            throw .verificationFailed("header at height \(height) does not link to the header at height \(height - 1)")
        }
    }
}
