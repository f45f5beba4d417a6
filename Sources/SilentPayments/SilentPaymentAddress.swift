import Bitcoin
import BitcoinCrypto

/// A BIP352 silent-payment address: a scan key and a spend key (possibly labelled), bech32m-encoded with the HRP
/// `sp` (mainnet), `tsp` (testnet, signet) or `sprt` (regtest).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0352.mediawiki#address-encoding
public struct SilentPaymentAddress: Sendable, Hashable, CustomStringConvertible {
    /// B_scan: the key the recipient scans with.
    public let scanKey: PublicKey
    /// B_spend, or B_m = B_spend + hash(b_scan ‖ m)·G for a labelled address.
    public let spendKey: PublicKey
    /// The network whose HRP the address carries.
    public let network: Network
    /// The address version (0; 1 to 30 are read as version 0 by their first 66 bytes, as BIP352 asks).
    public let version: UInt8

    /// The longest address BIP352 allows.
    public static let maxLength = 1023

    /// An address of `network` for the two keys.
    public init(scanKey: PublicKey, spendKey: PublicKey, network: Network) {
        self.scanKey = scanKey
        self.spendKey = spendKey
        self.network = network
        self.version = 0
    }

    /// The HRP of `network`.
    public static func hrp(for network: Network) -> String {
        switch network {
        case .main: "sp"
        case .test, .signet: "tsp"
        case .regtest: "sprt"
        }
    }

    /// Whether `text` looks like a silent-payment address (its HRP), before it is checked.
    public static func looksLike(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower.hasPrefix("sp1") || lower.hasPrefix("tsp1") || lower.hasPrefix("sprt1")
    }

    /// Parses an address; with `network`, one of another network is refused.
    ///
    /// - Throws: `SilentPaymentError.invalidAddress` (checksum, HRP, version 31, length, keys) or `.wrongNetwork`.
    public init(_ text: String, network expected: Network? = nil) throws(SilentPaymentError) {
        let decoded: Bech32.Decoded
        do { decoded = try Bech32.decode(text, maxLength: Self.maxLength) } catch {
            throw .invalidAddress(error.description)
        }
        guard decoded.variant == .bech32m else { throw .invalidAddress("it uses a bech32 checksum, not bech32m") }
        let network: Network
        switch decoded.hrp {
        case "sp": network = .main
        case "tsp": network = .test
        case "sprt": network = .regtest
        default: throw .invalidAddress("the prefix \(decoded.hrp) is not sp, tsp or sprt")
        }
        guard let version = decoded.data.first else { throw .invalidAddress("it has no version") }
        guard version < 31 else { throw .invalidAddress("version 31 is reserved for an incompatible change") }
        let payload: [UInt8]
        do { payload = try Bech32.convertBits(decoded.data.dropFirst(), from: 5, to: 8, pad: false) } catch {
            throw .invalidAddress(error.description)
        }
        if version == 0 {
            guard payload.count == 66 else { throw .invalidAddress("version 0 carries 66 bytes, not \(payload.count)") }
        } else {
            guard payload.count >= 66 else { throw .invalidAddress("it carries \(payload.count) bytes, fewer than 66") }
        }
        guard let scan = try? PublicKey(serialized: payload[0..<33]), payload[0] != 0x04,
            let spend = try? PublicKey(serialized: payload[33..<66]), payload[33] != 0x04
        else { throw .invalidAddress("its keys are not valid points") }
        if let expected {
            let matches = expected == network || (network == .test && expected == .signet)
            guard matches else { throw .wrongNetwork(address: text, expected: expected) }
        }
        self.scanKey = scan
        self.spendKey = spend
        self.network = expected ?? network
        self.version = version
    }

    /// The address text (version 0, lower case).
    public var encoded: String {
        let data =
            [UInt8(0)]
            + ((try? Bech32.convertBits(scanKey.compressed + spendKey.compressed, from: 8, to: 5, pad: true)) ?? [])
        return
            (try? Bech32.encode(hrp: Self.hrp(for: network), data: data, variant: .bech32m, maxLength: Self.maxLength))
            ?? ""
    }

    public var description: String { encoded }

    /// The value of PSBT_OUT_SP_V0_INFO: the scan key then the spend key.
    public var psbtInfo: [UInt8] { scanKey.compressed + spendKey.compressed }

    /// The labelled spend key B_m = B_spend + hash_BIP0352/Label(b_scan ‖ m)·G (BIP352 labels; m = 0 is change).
    ///
    /// - Throws: `SilentPaymentError.derivationFailed` in the negligible case of a tweak outside the group.
    public static func labelledSpendKey(scanPrivateKey: PrivateKey, spendKey: PublicKey, label: UInt32)
        throws(SilentPaymentError) -> PublicKey
    {
        let tweak = BIP352.labelTweak(scanPrivateKey: scanPrivateKey, label: label)
        do { return try spendKey.adding(tweak: tweak) } catch { throw .derivationFailed("the label tweak is invalid") }
    }
}
