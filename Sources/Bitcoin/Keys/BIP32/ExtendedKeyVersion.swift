/// The 4 version bytes of a serialized extended key: BIP32's xpub/xprv/tpub/tprv and the SLIP-132 forms (ypub, zpub,
/// Ypub, Zpub, upub, vpub, Upub, Vpub and their private twins).
///
/// The version says only how the key was written; the key material is the same. Descriptors carry the script type
/// themselves, so keys are re-encoded with `standard` there.
/// - SeeAlso: https://github.com/satoshilabs/slips/blob/master/slip-0132.md
public struct ExtendedKeyVersion: Sendable, Hashable, CustomStringConvertible {
    /// The script type that SLIP-132 associates with a version.
    public enum ScriptHint: String, Sendable, Hashable, CaseIterable {
        /// xpub/tpub: no script type implied (BIP32, BIP44 P2PKH, BIP86 taproot, descriptors).
        case standard
        /// ypub/upub: P2WPKH nested in P2SH (BIP49).
        case p2shP2wpkh
        /// zpub/vpub: native P2WPKH (BIP84).
        case p2wpkh
        /// Ypub/Upub: multisig P2WSH nested in P2SH.
        case p2shP2wsh
        /// Zpub/Vpub: native multisig P2WSH.
        case p2wsh
    }

    /// The 32-bit big-endian value.
    public let rawValue: UInt32
    /// Whether the version marks a private key.
    public let isPrivate: Bool
    /// Mainnet, or a test network (testnet, signet and regtest share the test versions): `.main` or `.test`.
    public let network: Network
    /// The script type the version implies.
    public let scriptHint: ScriptHint
    /// The four-letter prefix that base58 text with this version starts with (`xpub`, `zprv`, …).
    public let prefix: String

    private init(_ rawValue: UInt32, _ prefix: String, _ isPrivate: Bool, _ network: Network, _ hint: ScriptHint) {
        self.rawValue = rawValue
        self.prefix = prefix
        self.isPrivate = isPrivate
        self.network = network
        self.scriptHint = hint
    }

    /// Every known version.
    public static let all: [ExtendedKeyVersion] = [
        .init(0x0488_B21E, "xpub", false, .main, .standard), .init(0x0488_ADE4, "xprv", true, .main, .standard),
        .init(0x049D_7CB2, "ypub", false, .main, .p2shP2wpkh), .init(0x049D_7878, "yprv", true, .main, .p2shP2wpkh),
        .init(0x04B2_4746, "zpub", false, .main, .p2wpkh), .init(0x04B2_430C, "zprv", true, .main, .p2wpkh),
        .init(0x0295_B43F, "Ypub", false, .main, .p2shP2wsh), .init(0x0295_B005, "Yprv", true, .main, .p2shP2wsh),
        .init(0x02AA_7ED3, "Zpub", false, .main, .p2wsh), .init(0x02AA_7A99, "Zprv", true, .main, .p2wsh),
        .init(0x0435_87CF, "tpub", false, .test, .standard), .init(0x0435_8394, "tprv", true, .test, .standard),
        .init(0x044A_5262, "upub", false, .test, .p2shP2wpkh), .init(0x044A_4E28, "uprv", true, .test, .p2shP2wpkh),
        .init(0x045F_1CF6, "vpub", false, .test, .p2wpkh), .init(0x045F_18BC, "vprv", true, .test, .p2wpkh),
        .init(0x0242_89EF, "Upub", false, .test, .p2shP2wsh), .init(0x0242_85B5, "Uprv", true, .test, .p2shP2wsh),
        .init(0x0257_5483, "Vpub", false, .test, .p2wsh), .init(0x0257_5048, "Vprv", true, .test, .p2wsh),
    ]

    /// The known version with `rawValue`.
    ///
    /// - Throws: `BIP32Error.unknownVersion`.
    public init(rawValue: UInt32) throws(BIP32Error) {
        guard let found = Self.all.first(where: { $0.rawValue == rawValue }) else { throw .unknownVersion(rawValue) }
        self = found
    }

    /// The version for a network (main or any test network), key kind and script hint.
    public init(network: Network, isPrivate: Bool, scriptHint: ScriptHint = .standard) {
        let wanted: Network = network == .main ? .main : .test
        // The table holds every combination, so the search cannot fail.
        self =
            Self.all.first { $0.network == wanted && $0.isPrivate == isPrivate && $0.scriptHint == scriptHint }
            ?? Self.all[0]
    }

    /// The standard (xpub/xprv or tpub/tprv) version of the same network and kind.
    public var standard: ExtendedKeyVersion { ExtendedKeyVersion(network: network, isPrivate: isPrivate) }

    /// The public version of the same network and script hint (zprv → zpub).
    public var publicVersion: ExtendedKeyVersion {
        ExtendedKeyVersion(network: network, isPrivate: false, scriptHint: scriptHint)
    }

    /// The 4 bytes, big-endian.
    public func serialized() -> [UInt8] {
        [UInt8(rawValue >> 24), UInt8(rawValue >> 16 & 0xFF), UInt8(rawValue >> 8 & 0xFF), UInt8(rawValue & 0xFF)]
    }

    public var description: String { prefix }
}
