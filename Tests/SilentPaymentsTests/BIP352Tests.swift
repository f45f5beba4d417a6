import Bitcoin
import BitcoinCrypto
import Foundation
import SilentPayments
import TestSupport
import Testing

/// One case of bitcoin/bips bip-0352/send_and_receive_test_vectors.json.
struct BIP352Case: CustomTestStringConvertible, @unchecked Sendable {
    let index: Int
    let json: [String: Any]
    var testDescription: String { "#\(index) \(json["comment"] as? String ?? "")" }

    static func all() throws -> [BIP352Case] {
        let cases = try #require(
            try Vectors.anyJSON("silentpayments/send_and_receive_test_vectors.json") as? [[String: Any]])
        return cases.enumerated().map { BIP352Case(index: $0.offset, json: $0.element) }
    }

    /// A serialized witness stack (compact-size count, then var-bytes items), or none.
    static func witness(_ hex: String) -> [[UInt8]] {
        let bytes = TestHex.bytes(hex)
        guard !bytes.isEmpty else { return [] }
        var offset = 0
        func compact() -> Int {
            let first = bytes[offset]
            offset += 1
            if first < 0xFD { return Int(first) }
            let width = first == 0xFD ? 2 : first == 0xFE ? 4 : 8
            var value = 0
            for i in 0..<width { value |= Int(bytes[offset + i]) << (8 * i) }
            offset += width
            return value
        }
        var stack: [[UInt8]] = []
        for _ in 0..<compact() {
            let length = compact()
            stack.append(Array(bytes[offset..<offset + length]))
            offset += length
        }
        return stack
    }
}

@Suite("BIP352 sending and address vectors")
struct BIP352Tests {
    @Test(
        "Every sending case: the eligible input keys, key sum, shared secrets and one of the listed output sets",
        arguments: try BIP352Case.all())
    func sending(_ vector: BIP352Case) throws {
        let sendings = try #require(vector.json["sending"] as? [[String: Any]])
        #expect(!sendings.isEmpty)
        for sending in sendings {
            let given = try #require(sending["given"] as? [String: Any])
            let expected = try #require(sending["expected"] as? [String: Any])
            let vins = try #require(given["vin"] as? [[String: Any]])
            var keys: [(key: PrivateKey, isTaproot: Bool)] = []
            var publicKeys: [String] = []
            var outpoints: [OutPoint] = []
            for vin in vins {
                let txid = try Txid(hex: try #require(vin["txid"] as? String))
                outpoints.append(OutPoint(txid: txid, vout: UInt32(try #require(vin["vout"] as? Int))))
                let prevout = try #require((vin["prevout"] as? [String: Any])?["scriptPubKey"] as? [String: Any])
                let script = Script(TestHex.bytes(try #require(prevout["hex"] as? String)))
                guard
                    let found = BIP352.inputPublicKey(
                        spentScript: script, scriptSig: TestHex.bytes(try #require(vin["scriptSig"] as? String)),
                        witness: BIP352Case.witness(try #require(vin["txinwitness"] as? String)))
                else { continue }
                let key = try PrivateKey(
                    secret: SecretBytes(copying: TestHex.bytes(try #require(vin["private_key"] as? String))))
                keys.append((key, found.isTaproot))
                publicKeys.append(found.key.compressed.hexString)
            }
            #expect(publicKeys == (expected["input_pub_keys"] as? [String] ?? []))
            let expectedSets = try #require(expected["outputs"] as? [[String]])
            var recipients: [SilentPaymentAddress] = []
            for entry in try #require(given["recipients"] as? [[String: Any]]) {
                let address = try SilentPaymentAddress(try #require(entry["address"] as? String), network: .main)
                #expect(address.scanKey.compressed.hexString == entry["scan_pub_key"] as? String)
                #expect(address.spendKey.compressed.hexString == entry["spend_pub_key"] as? String)
                #expect(address.encoded == entry["address"] as? String)
                recipients += Array(repeating: address, count: entry["count"] as? Int ?? 1)
            }
            guard !keys.isEmpty else {
                #expect(expectedSets.first == [])
                continue
            }
            let outputs: [(recipient: Int, key: XOnlyPublicKey)]
            do {
                outputs = try BIP352.createOutputs(inputKeys: keys, outpoints: outpoints, recipients: recipients)
            } catch {
                #expect(expectedSets.first == [], "sending failed: \(error)")
                continue
            }
            let sum = try BIP352.privateKeySum(keys)
            #expect(
                sum.secret.withBytePointer { Array(UnsafeBufferPointer(start: $0, count: $1)) }.hexString == expected[
                    "input_private_key_sum"] as? String)
            if let secrets = expected["shared_secrets"] as? [String] {
                let hash = try BIP352.inputHash(outpoints: outpoints, inputKeySum: sum.publicKey)
                for (index, recipient) in recipients.enumerated() where index < secrets.count {
                    let shared = try recipient.scanKey.multiplied(by: sum).multiplied(by: hash)
                    #expect(shared.compressed.hexString == secrets[index])
                }
            }
            let produced = Set(outputs.map { $0.key.bytes.hexString })
            #expect(expectedSets.contains { Set($0) == produced }, "outputs \(produced.sorted())")
        }
    }

    @Test("Every receiving case's addresses, labelled ones included, encode as listed", arguments: try BIP352Case.all())
    func addresses(_ vector: BIP352Case) throws {
        for receiving in try #require(vector.json["receiving"] as? [[String: Any]]) {
            let given = try #require(receiving["given"] as? [String: Any])
            let expected = try #require(receiving["expected"] as? [String: Any])
            let material = try #require(given["key_material"] as? [String: String])
            let scan = try PrivateKey(
                secret: SecretBytes(copying: TestHex.bytes(try #require(material["scan_priv_key"]))))
            let spend = try PrivateKey(
                secret: SecretBytes(copying: TestHex.bytes(try #require(material["spend_priv_key"]))))
            var addresses = [
                SilentPaymentAddress(scanKey: scan.publicKey, spendKey: spend.publicKey, network: .main).encoded
            ]
            for label in given["labels"] as? [Int] ?? [] {
                let labelled = try SilentPaymentAddress.labelledSpendKey(
                    scanPrivateKey: scan, spendKey: spend.publicKey, label: UInt32(label))
                addresses.append(
                    SilentPaymentAddress(scanKey: scan.publicKey, spendKey: labelled, network: .main).encoded)
            }
            #expect(addresses == expected["addresses"] as? [String])
            for text in addresses {
                #expect(try SilentPaymentAddress(text).encoded == text)
            }
        }
    }

    @Test("Addresses: tsp and sprt round trip; another network, a bech32 checksum, version 31 and a typo are refused")
    func addressRules() throws {
        let scan = PrivateKey.random().publicKey
        let spend = PrivateKey.random().publicKey
        let regtest = SilentPaymentAddress(scanKey: scan, spendKey: spend, network: .regtest)
        #expect(regtest.encoded.hasPrefix("sprt1q"))
        #expect(try SilentPaymentAddress(regtest.encoded, network: .regtest) == regtest)
        let testnet = SilentPaymentAddress(scanKey: scan, spendKey: spend, network: .test)
        #expect(testnet.encoded.hasPrefix("tsp1q"))
        #expect(throws: SilentPaymentError.wrongNetwork(address: testnet.encoded, expected: .main)) {
            try SilentPaymentAddress(testnet.encoded, network: .main)
        }
        let data5 = try Bech32.convertBits(scan.compressed + spend.compressed, from: 8, to: 5, pad: true)
        let bech32 = try Bech32.encode(hrp: "sp", data: [0] + data5, variant: .bech32, maxLength: 1023)
        #expect(throws: SilentPaymentError.self) { try SilentPaymentAddress(bech32) }
        let v31 = try Bech32.encode(hrp: "sp", data: [31] + data5, variant: .bech32m, maxLength: 1023)
        #expect(throws: SilentPaymentError.self) { try SilentPaymentAddress(v31) }
        let v1 = try Bech32.encode(hrp: "sp", data: [1] + data5 + [0, 0], variant: .bech32m, maxLength: 1023)
        #expect(try SilentPaymentAddress(v1).spendKey == spend)
        var typo = Array(regtest.encoded)
        typo[20] = typo[20] == "q" ? "p" : "q"
        #expect(throws: SilentPaymentError.self) { try SilentPaymentAddress(String(typo)) }
    }
}

extension Array where Element == UInt8 {
    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
