import Bitcoin
import BitcoinCrypto
import TestSupport
import Testing

/// Bitcoin Core's key_io_valid.json / key_io_invalid.json (Tests/Vectors/base58_keys/), address entries.
struct KeyIOVectors {
    struct Valid: CustomTestStringConvertible, Sendable {
        let string: String
        let hex: String
        let chain: String
        let isPrivkey: Bool
        let tryCaseFlip: Bool
        var testDescription: String { "\(chain) \(string)" }
        var network: Network {
            switch chain {
            case "main": .main
            case "signet": .signet
            case "regtest": .regtest
            default: .test
            }
        }
    }

    static func valid() throws -> [Valid] {
        guard let rows = try Vectors.anyJSON("base58_keys/key_io_valid.json") as? [[Any]] else {
            throw Vectors.VectorsError.malformed(path: "key_io_valid.json", detail: "not an array of arrays")
        }
        return try rows.map { row in
            guard row.count == 3, let string = row[0] as? String, let hex = row[1] as? String,
                let meta = row[2] as? [String: Any], let chain = meta["chain"] as? String,
                let isPrivkey = meta["isPrivkey"] as? Bool
            else { throw Vectors.VectorsError.malformed(path: "key_io_valid.json", detail: "bad row") }
            return Valid(
                string: string, hex: hex, chain: chain, isPrivkey: isPrivkey,
                tryCaseFlip: meta["tryCaseFlip"] as? Bool ?? false)
        }
    }

    static func addresses() throws -> [Valid] { try valid().filter { !$0.isPrivkey } }

    static func invalid() throws -> [String] {
        try Vectors.json("base58_keys/key_io_invalid.json", as: [[String]].self).compactMap(\.first)
    }
}

@Suite("Addresses: Bitcoin Core key_io vectors")
struct KeyIOAddressTests {
    @Test("Every valid address parses to its scriptPubKey and encodes back", arguments: try KeyIOVectors.addresses())
    func valid(_ vector: KeyIOVectors.Valid) throws {
        let address = try Address(string: vector.string, network: vector.network)
        #expect(address.scriptPubKey.hexString == vector.hex)
        #expect(address.description == vector.string)
        let rebuilt = try Address(scriptPubKey: Script(hex: vector.hex), network: vector.network)
        #expect(rebuilt.description == vector.string)
        #expect(rebuilt == address)
        let (_, networks) = try Address.decode(vector.string)
        #expect(networks.contains(vector.network))
        #expect(networks.contains(.main) == (vector.network == .main))
    }

    @Test("A case-flipped address is valid exactly when tryCaseFlip says so", arguments: try KeyIOVectors.addresses())
    func caseFlip(_ vector: KeyIOVectors.Valid) throws {
        let flipped = String(
            vector.string.map { c -> Character in
                c.isLowercase ? Character(c.uppercased()) : c.isUppercase ? Character(c.lowercased()) : c
            })
        if vector.tryCaseFlip {
            let address = try Address(string: flipped, network: vector.network)
            #expect(address.scriptPubKey.hexString == vector.hex)
        } else {
            #expect(throws: AddressError.self) { try Address(string: flipped, network: vector.network) }
        }
    }

    @Test("Every invalid string fails as an address on every network", arguments: try KeyIOVectors.invalid())
    func invalid(_ string: String) {
        #expect(throws: AddressError.self) { try Address.decode(string) }
        for network in Network.allCases {
            #expect(throws: AddressError.self) { try Address(string: string, network: network) }
        }
    }
}

@Suite("Addresses: BIP173 / BIP350 segwit address vectors")
struct SegwitAddressTests {
    @Test("BIP350 valid addresses give their scriptPubKey", arguments: try Bech32Vectors.bip350().validAddresses)
    func bip350Valid(_ vector: Bech32Vectors.AddressCase) throws {
        let address = try Address(string: vector.address)
        #expect(address.scriptPubKey.hexString == vector.scriptPubKey)
        #expect(address.description == vector.address.lowercased())
    }

    @Test("BIP350 invalid addresses are rejected", arguments: try Bech32Vectors.bip350().invalidAddresses)
    func bip350Invalid(_ vector: Bech32Vectors.AddressCase) {
        #expect(throws: AddressError.self) { try Address.decode(vector.address) }
    }

    @Test("BIP173 invalid addresses are rejected", arguments: try Bech32Vectors.bip173().invalidAddresses)
    func bip173Invalid(_ vector: Bech32Vectors.AddressCase) {
        #expect(throws: AddressError.self) { try Address.decode(vector.address) }
    }

    /// BIP173's v0 addresses are still valid; its v1+ addresses carry a bech32 checksum, invalid since BIP350.
    @Test(
        "BIP173 valid addresses: v0 parses, v1+ is the wrong checksum variant",
        arguments: try Bech32Vectors.bip173().validAddresses)
    func bip173Valid(_ vector: Bech32Vectors.AddressCase) throws {
        let script = try Script(hex: vector.scriptPubKey ?? "")
        let version = try #require(script.witnessProgram).version
        if version == 0 {
            #expect(try Address(string: vector.address).scriptPubKey == script)
        } else {
            #expect(throws: AddressError.wrongChecksumVariant(witnessVersion: version)) {
                try Address.decode(vector.address)
            }
        }
    }
}

@Suite("Addresses: typed errors and networks")
struct AddressErrorTests {
    let p2wpkh = "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"

    @Test("Wrong network is named")
    func wrongNetwork() {
        #expect(throws: AddressError.wrongNetwork(expected: .test, found: [.main])) {
            try Address(string: p2wpkh, network: .test)
        }
        #expect(throws: AddressError.wrongNetwork(expected: .main, found: [.test, .signet, .regtest])) {
            try Address(string: "mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ", network: .main)
        }
    }

    @Test("Testnet and signet share encodings; regtest shares only base58")
    func sharedEncodings() throws {
        let tb = "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx"
        #expect(try Address.decode(tb).networks == [.test, .signet])
        #expect(try Address(string: tb, network: .signet).description == tb)
        #expect(throws: AddressError.self) { try Address(string: tb, network: .regtest) }
        let base58 = try Address(string: "mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ", network: .regtest)
        #expect(base58.networksSharingEncoding == [.test, .signet, .regtest])
    }

    @Test("Bad checksum, bad length, unknown prefix and unknown HRP are named")
    func namedErrors() throws {
        #expect(throws: AddressError.invalidChecksum) {
            try Address.decode("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5")
        }
        #expect(throws: AddressError.invalidChecksum) { try Address.decode("1FsSia9rv4NeEwvJ2GvXrX7LyxYspbN2mp") }
        #expect(throws: AddressError.invalidPayloadLength(20)) {
            try Address.decode(Base58.encodeCheck([UInt8](repeating: 0, count: 20)))
        }
        #expect(throws: AddressError.unknownPrefix(0x30)) {
            try Address.decode(Base58.encodeCheck([0x30] + [UInt8](repeating: 0, count: 20)))
        }
        #expect(throws: AddressError.invalidProgramLength(version: 0, length: 16)) {
            try Address.decode("BC1QR508D6QEJXTDG4Y5R3ZARVARYV98GJ9P")
        }
        let unknown = try Bech32.encode(hrp: "ltc", data: [0] + [UInt8](repeating: 0, count: 32), variant: .bech32)
        #expect(throws: AddressError.unknownHumanReadablePart("ltc")) { try Address.decode(unknown) }
        #expect(throws: AddressError.mixedCase) {
            try Address.decode("tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sL5k7")
        }
    }

    @Test("Scripts without an address form are refused")
    func noAddressForm() throws {
        let script = Script.opReturn([1, 2, 3])
        #expect(throws: AddressError.noAddressForm(script)) { try Address(scriptPubKey: script, network: .main) }
    }

    @Test("A future witness version round-trips as bech32m")
    func futureVersion() throws {
        let program = try WitnessProgram(version: 5, program: [1, 2, 3, 4])
        let address = Address(.witness(program), network: .regtest)
        #expect(address.description.hasPrefix("bcrt19"))
        #expect(try Address(string: address.description, network: .regtest) == address)
        #expect(try Bech32.decode(address.description).variant == .bech32m)
    }
}
