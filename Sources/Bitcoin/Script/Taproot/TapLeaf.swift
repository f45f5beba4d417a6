import BitcoinCrypto

/// A taproot script-tree leaf: a script and its leaf version (0xc0 for BIP342 tapscript).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0341.mediawiki#constructing-and-spending-taproot-outputs
public struct TapLeaf: Hashable, Sendable {
    /// The BIP342 tapscript leaf version.
    public static let tapscriptVersion: UInt8 = 0xC0

    /// The leaf script.
    public let script: Script
    /// The leaf version (even).
    public let version: UInt8

    /// A leaf of `script` with `version`.
    ///
    /// - Throws: `TaprootError.invalidLeafVersion` when the version's low bit is set.
    public init(script: Script, version: UInt8 = TapLeaf.tapscriptVersion) throws(TaprootError) {
        guard version & 1 == 0 else { throw .invalidLeafVersion(version) }
        self.script = script
        self.version = version
    }

    /// A BIP342 tapscript leaf.
    public init(tapscript script: Script) {
        self.script = script
        self.version = Self.tapscriptVersion
    }

    /// TapLeaf(version ‖ compact_size(script length) ‖ script).
    public var hash: TapNodeHash {
        var writer = ByteWriter(capacity: script.bytes.count + 10)
        writer.write(version)
        writer.writeVarBytes(script.bytes)
        return TapNodeHash(unchecked: TaggedHash.tapLeaf.hash(writer.bytes))
    }
}
