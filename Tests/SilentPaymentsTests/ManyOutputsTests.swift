import Bitcoin
import BitcoinCrypto
import SilentPayments
import Testing

/// More than 255 outputs to one scan key: k is BIP352's ser32(k) (4 bytes, big-endian), and K_max (2,323 outputs
/// per scan key in one transaction, BIP352 "Creating outputs") is enforced with a clear message.
@Suite("BIP352: k past 255 and the K_max limit")
struct ManyOutputsTests {
    let scan = PrivateKey.random()
    let inputKey = PrivateKey.random()
    let outpoint: OutPoint

    init() throws { outpoint = OutPoint(txid: try Txid(bytes: [UInt8](repeating: 0x33, count: 32)), vout: 2) }

    func recipients(_ count: Int) -> [SilentPaymentAddress] {
        (0..<count).map { _ in
            SilentPaymentAddress(scanKey: scan.publicKey, spendKey: PrivateKey.random().publicKey, network: .regtest)
        }
    }

    /// P_k computed here from BIP352's formula with k written out as 4 big-endian bytes.
    func expected(_ recipient: SilentPaymentAddress, k: [UInt8]) throws -> XOnlyPublicKey {
        let inputHash = TaggedHash(tag: "BIP0352/Inputs").hash(
            outpoint.txid.bytes + [2, 0, 0, 0] + inputKey.publicKey.compressed)
        let shared = try scan.publicKey.multiplied(by: inputKey).multiplied(by: inputHash)
        let tweak = TaggedHash(tag: "BIP0352/SharedSecret").hash(shared.compressed + k)
        return try recipient.spendKey.adding(tweak: tweak).xOnly.key
    }

    @Test("300 outputs to one scan key: outputs 256 and 299 use ser32(k) (a one-byte k would give other keys)")
    func kPast255() throws {
        let recipients = recipients(300)
        let outputs = try BIP352.createOutputs(
            inputKeys: [(inputKey, false)], outpoints: [outpoint], recipients: recipients)
        #expect(outputs.count == 300)
        #expect(Set(outputs.map(\.key.bytes)).count == 300)
        let at256 = try #require(outputs.first { $0.recipient == 256 })
        #expect(at256.key == (try expected(recipients[256], k: [0, 0, 1, 0])))
        let at299 = try #require(outputs.first { $0.recipient == 299 })
        #expect(at299.key == (try expected(recipients[299], k: [0, 0, 0x01, 0x2B])))
        // Control: k truncated to one byte (256 → 0) is a different key, so the check above could fail.
        #expect(at256.key != (try expected(recipients[256], k: [0, 0, 0, 0])))
    }

    @Test("K_max: 2,323 outputs to one scan key are allowed, 2,324 are refused with the limit named")
    func kMax() throws {
        #expect(BIP352.maxRecipientsPerGroup == 2323)
        let many = recipients(2324)
        try BIP352.checkGroupSizes(Array(many.prefix(2323)))
        do {
            try BIP352.checkGroupSizes(many)
            Issue.record("2,324 outputs to one scan key were accepted")
        } catch {
            #expect(error == .tooManyOutputs(count: 2324, recipient: many[0].encoded))
            #expect(error.description.contains("at most 2323 per scan key"))
            #expect(error.description.contains("split the payment"))
            #expect(error.failureKind == .invalidInput)
        }
        #expect(throws: SilentPaymentError.tooManyOutputs(count: 2324, recipient: many[0].encoded)) {
            try BIP352.createOutputs(inputKeys: [(inputKey, false)], outpoints: [outpoint], recipients: many)
        }
        // Another scan key does not count toward the group.
        let other = SilentPaymentAddress(
            scanKey: PrivateKey.random().publicKey, spendKey: PrivateKey.random().publicKey, network: .regtest)
        try BIP352.checkGroupSizes(Array(many.prefix(2323)) + [other])
    }

    @Test("A PSBT with 2,324 silent-payment outputs to one scan key is refused by the structure check (control: 2,323)")
    func kMaxInPSBT() throws {
        func psbt(outputs count: Int) throws -> PSBT {
            let transaction = Transaction(
                version: 2, inputs: [TxIn(previousOutput: outpoint)],
                outputs: (0..<count).map { _ in
                    TxOut(value: .zero, scriptPubKey: Script([0x51, 0x20] + [UInt8](repeating: 1, count: 32)))
                },
                lockTime: LockTime(rawValue: 0))
            var psbt = try PSBT(unsignedTransaction: transaction).convertedToVersion2()
            for (index, recipient) in recipients(count).enumerated() {
                psbt.outputs[index].map.remove(PSBTKeyType.Output.script)
                psbt.outputs[index].map.set(PSBTKeyType.Output.spV0Info, value: recipient.psbtInfo)
            }
            return psbt
        }
        try BIP375.checkStructure(try psbt(outputs: 2323))
        #expect(throws: SilentPaymentError.tooManyOutputs(count: 2324, recipient: "outputs 0 and after")) {
            try BIP375.checkStructure(try psbt(outputs: 2324))
        }
    }
}
