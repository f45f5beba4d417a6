/// Parsing address text: base58check P2PKH/P2SH and bech32/bech32m segwit addresses (BIP173, BIP350).
extension Address {
    /// Parses an address that must be valid on `network`.
    ///
    /// - Throws: `AddressError.wrongNetwork` when it belongs to other networks, or any decoding error of
    ///   `decode(_:)`.
    public init(string: String, network: Network) throws(AddressError) {
        let (payload, networks) = try Self.decode(string)
        guard networks.contains(network) else { throw .wrongNetwork(expected: network, found: networks) }
        self.init(payload, network: network)
    }

    /// Parses an address on whichever network it belongs to: mainnet, testnet (also valid on signet, and for base58
    /// on regtest; see `networksSharingEncoding`) or regtest (`bcrt1…`).
    ///
    /// - Throws: any decoding error of `decode(_:)`.
    public init(string: String) throws(AddressError) {
        let (payload, networks) = try Self.decode(string)
        self.init(payload, network: networks.first ?? .main)
    }

    /// Decodes address text into its payload and every network on which the text is valid.
    ///
    /// - Throws: `AddressError` naming the checksum, prefix, HRP, version, length or case problem.
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0350.mediawiki
    public static func decode(_ string: String) throws(AddressError) -> (payload: Payload, networks: [Network]) {
        let lower = string.lowercased()
        if ["bc1", "tb1", "bcrt1"].contains(where: { lower.hasPrefix($0) }) {
            return try decodeSegwit(string)
        }
        do {
            return try decodeBase58(string)
        } catch .invalidEncoding(let base58Error) {
            // Not base58: a bech32 string with an unknown HRP gets the more useful error.
            if let decoded = try? Bech32.decode(string) { throw .unknownHumanReadablePart(decoded.hrp) }
            throw .invalidEncoding(base58Error)
        }
    }

    private static func decodeBase58(_ string: String) throws(AddressError) -> (Payload, [Network]) {
        let payload: [UInt8]
        do {
            payload = try Base58.decodeCheck(string)
        } catch .checksumMismatch {
            throw .invalidChecksum
        } catch {
            throw .invalidEncoding(error)
        }
        guard payload.count == 21 else { throw .invalidPayloadLength(payload.count) }
        let hash = Array(payload[1...])
        let testNetworks: [Network] = [.test, .signet, .regtest]
        switch payload[0] {
        case Network.main.p2pkhPrefix: return (.p2pkh(PubkeyHash(unchecked: hash)), [.main])
        case Network.main.p2shPrefix: return (.p2sh(ScriptHash(unchecked: hash)), [.main])
        case Network.test.p2pkhPrefix: return (.p2pkh(PubkeyHash(unchecked: hash)), testNetworks)
        case Network.test.p2shPrefix: return (.p2sh(ScriptHash(unchecked: hash)), testNetworks)
        default: throw .unknownPrefix(payload[0])
        }
    }

    private static func decodeSegwit(_ string: String) throws(AddressError) -> (Payload, [Network]) {
        let decoded: Bech32.Decoded
        do {
            decoded = try Bech32.decode(string)
        } catch .checksumMismatch {
            throw .invalidChecksum
        } catch .mixedCase {
            throw .mixedCase
        } catch {
            throw .invalidEncoding(error)
        }
        let networks = Network.allCases.filter { $0.bech32HRP == decoded.hrp }
        guard !networks.isEmpty else { throw .unknownHumanReadablePart(decoded.hrp) }
        guard let version = decoded.data.first.map(Int.init) else { throw .missingWitnessVersion }
        guard version <= 16 else { throw .invalidWitnessVersion(version) }
        let program: [UInt8]
        do {
            program = try Bech32.convertBits(decoded.data.dropFirst(), from: 5, to: 8, pad: false)
        } catch {
            throw .invalidEncoding(error)
        }
        guard (2...40).contains(program.count), version != 0 || program.count == 20 || program.count == 32 else {
            throw .invalidProgramLength(version: version, length: program.count)
        }
        guard decoded.variant == (version == 0 ? .bech32 : .bech32m) else {
            throw .wrongChecksumVariant(witnessVersion: version)
        }
        return (.witness(WitnessProgram(uncheckedVersion: version, program: program)), networks)
    }
}
