import BitcoinCrypto

/// A Bitcoin address: what a scriptPubKey commits to, written for one network.
///
/// Testnet and signet share every encoding (`tb1…`, `m…`/`n…`, `2…`), and regtest shares their base58 prefixes,
/// so one string can be valid on several networks: `Address.decode(_:)` reports all of them, and `network` is the one
/// the address was parsed for or built with. Two addresses differ when their networks differ even if their
/// strings are equal.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0350.mediawiki
public struct Address: Hashable, Sendable {
    /// What the address pays to.
    public enum Payload: Hashable, Sendable {
        /// Pay to public-key hash (base58, version byte 0x00 or 0x6f).
        case p2pkh(PubkeyHash)
        /// Pay to script hash (base58, version byte 0x05 or 0xc4).
        case p2sh(ScriptHash)
        /// A segwit output of any version: P2WPKH, P2WSH, P2TR and future versions (bech32 / bech32m).
        case witness(WitnessProgram)
    }

    /// What the address pays to.
    public let payload: Payload
    /// The network it is written for.
    public let network: Network

    /// The address of `payload` on `network`.
    public init(_ payload: Payload, network: Network) {
        self.payload = payload
        self.network = network
    }

    /// The address that `scriptPubKey` pays to.
    ///
    /// - Throws: `AddressError.noAddressForm` for P2PK, bare multisig, OP_RETURN and non-standard scripts.
    public init(scriptPubKey: Script, network: Network) throws(AddressError) {
        switch scriptPubKey.template {
        case .p2pkh(let hash): payload = .p2pkh(hash)
        case .p2sh(let hash): payload = .p2sh(hash)
        default:
            guard let program = scriptPubKey.witnessProgram else { throw .noAddressForm(scriptPubKey) }
            payload = .witness(program)
        }
        self.network = network
    }

    /// The scriptPubKey the address pays to.
    public var scriptPubKey: Script {
        switch payload {
        case .p2pkh(let hash): .p2pkh(hash)
        case .p2sh(let hash): .p2sh(hash)
        case .witness(let program): program.scriptPubKey
        }
    }

    /// The networks on which this address's string is the same: testnet and signet always share it, and regtest
    /// shares base58 addresses with them.
    public var networksSharingEncoding: [Network] {
        switch (payload, network) {
        case (_, .main): [.main]
        case (.witness, .regtest): [.regtest]
        case (.witness, _): [.test, .signet]
        default: [.test, .signet, .regtest]
        }
    }

    /// P2WPKH of a compressed public key.
    public static func p2wpkh(_ key: PublicKey, network: Network) -> Address {
        Address(.witness(WitnessProgram(uncheckedVersion: 0, program: PubkeyHash(key).bytes)), network: network)
    }

    /// P2PKH of a compressed public key.
    public static func p2pkh(_ key: PublicKey, network: Network) -> Address {
        Address(.p2pkh(PubkeyHash(key)), network: network)
    }

    /// P2TR with output key `outputKey` (already tweaked).
    public static func p2tr(outputKey: XOnlyPublicKey, network: Network) -> Address {
        Address(.witness(WitnessProgram(uncheckedVersion: 1, program: outputKey.bytes)), network: network)
    }
}

extension Address: CustomStringConvertible {
    /// The address text: base58check for P2PKH and P2SH, lower-case bech32 (v0) or bech32m (v1+) for segwit.
    public var description: String {
        switch payload {
        case .p2pkh(let hash): Base58.encodeCheck([network.p2pkhPrefix] + hash.bytes)
        case .p2sh(let hash): Base58.encodeCheck([network.p2shPrefix] + hash.bytes)
        case .witness(let program):
            Bech32.encode(
                validatedHRP: Array(network.bech32HRP.utf8),
                data: [UInt8(program.version)] + Bech32.convertBits(eightBit: program.program),
                variant: program.version == 0 ? .bech32 : .bech32m)
        }
    }
}
