import Bitcoin
import BitcoinCrypto
import Foundation
import TestSupport
import Testing

/// BIP143's worked examples (Tests/Vectors/sighash/bip143_examples.json).
struct BIP143Vectors {
    struct SighashCase: CustomTestStringConvertible, Sendable {
        let section: String
        let unsignedTx: String
        let preimage: String
        let sighash: String
        let signature: String
        let pubkey: String
        let privkey: String?
        var testDescription: String { "\(section): \(sighash.prefix(16))…" }
    }

    struct Example: CustomTestStringConvertible, Sendable {
        let section: String
        let unsignedTx: String?
        let inputs: [[String: String]]
        let signedTxs: [String]
        var testDescription: String { section }
    }

    static func examples() throws -> [[String: Any]] {
        guard let root = try Vectors.anyJSON("sighash/bip143_examples.json") as? [String: Any],
            let examples = root["examples"] as? [[String: Any]]
        else { throw Vectors.VectorsError.malformed(path: "bip143_examples.json", detail: "examples") }
        return examples
    }

    static func sighashCases() throws -> [SighashCase] {
        try examples().flatMap { example in
            (example["sighash_cases"] as? [[String: String]] ?? []).map { entry in
                SighashCase(
                    section: example["section"] as? String ?? "",
                    unsignedTx: example["unsigned_tx"] as? String ?? example["signed_tx"] as? String ?? "",
                    preimage: entry["preimage"] ?? "", sighash: entry["sighash"] ?? "",
                    signature: entry["signature"] ?? "", pubkey: entry["pubkey"] ?? "", privkey: entry["privkey"])
            }
        }
    }

    static func exampleList() throws -> [Example] {
        try examples().map { example in
            Example(
                section: example["section"] as? String ?? "", unsignedTx: example["unsigned_tx"] as? String,
                inputs: (example["inputs"] as? [[String: Any]] ?? []).map { $0.compactMapValues { $0 as? String } },
                signedTxs: (example["signed_txs"] as? [[String: String]] ?? []).compactMap { $0["tx"] }
                    + [example["signed_tx"] as? String].compactMap { $0 })
        }
    }
}

@Suite("BIP143 examples")
struct BIP143Tests {
    /// The input index, scriptCode, amount and hash type are read back out of the BIP's preimage (their fixed
    /// positions in the BIP143 layout); the preimage is then rebuilt from the transaction and compared whole.
    @Test(
        "Every sighash case: preimage, sighash, and the signature verifies", arguments: try BIP143Vectors.sighashCases()
    )
    func sighash(_ vector: BIP143Vectors.SighashCase) throws {
        let tx = try Transaction(serialized: TestHex.bytes(vector.unsignedTx))
        let preimage = TestHex.bytes(vector.preimage)
        var reader = ByteReader(preimage[68...])
        let outPoint = try OutPoint(from: &reader)
        let scriptCode = Script(try reader.readVarBytes())
        let amount = try Amount(sats: reader.readUInt64())
        let type = SighashType(rawValue: UInt32(preimage[preimage.count - 4]))
        let index = try #require(tx.inputs.firstIndex { $0.previousOutput == outPoint })

        var cache = SighashCache(tx)
        let rebuilt = try cache.segwitV0Preimage(inputIndex: index, scriptCode: scriptCode, amount: amount, type: type)
        #expect(rebuilt.hexString == vector.preimage)
        let digest = try cache.segwitV0SignatureHash(
            inputIndex: index, scriptCode: scriptCode, amount: amount, type: type)
        #expect(digest.hexString == vector.sighash)

        let signatureBytes = TestHex.bytes(vector.signature)
        guard !signatureBytes.isEmpty else { return }  // the multisig No-FindAndDelete case prints no signature
        #expect(signatureBytes.last.map(UInt32.init) == type.rawValue)
        var signature = try ECDSASignature(der: signatureBytes.dropLast())
        // The No-FindAndDelete signatures were fixed in advance and have a high S; Bitcoin verifies the low-S twin.
        if !signature.isLowS {
            signature = try ECDSASignature(
                compact: signature.compact.prefix(32) + negatedModN(signature.compact.suffix(32)))
        }
        let publicKey = try PublicKey(serialized: TestHex.bytes(vector.pubkey))
        #expect(publicKey.verify(signature, digest: digest))

        if let privkey = vector.privkey {
            let key = try PrivateKey(secret: SecretBytes(copying: TestHex.bytes(privkey)))
            #expect(key.publicKey == publicKey)
            let ours = try key.signECDSA(digest: digest)
            #expect(publicKey.verify(ours, digest: digest))
            // RFC6979 is deterministic: where the BIP's signature already has a low R, low-R grinding stops at the
            // first nonce and must reproduce it exactly.
            if signature.compact[0] < 0x80 { #expect(ours == signature) }
        }
    }

    @Test("Signed transactions parse and serialize byte-exact", arguments: try BIP143Vectors.exampleList())
    func signedTransactions(_ example: BIP143Vectors.Example) throws {
        #expect(!example.signedTxs.isEmpty)
        for hex in example.signedTxs {
            let signed = try Transaction(serialized: TestHex.bytes(hex))
            #expect(signed.serialized().hexString == hex)
            #expect(signed.hasWitness)
            #expect(signed.wtxid.bytes != signed.txid.bytes)
            var stripped = signed
            for index in stripped.inputs.indices { stripped.inputs[index].witness = Witness() }
            #expect(stripped.serialized() == signed.serialized(includingWitness: false))
            #expect(stripped.txid == signed.txid)
            #expect(signed.weight == stripped.totalSize * 3 + signed.totalSize)
            if let unsignedHex = example.unsignedTx {
                let unsigned = try Transaction(serialized: TestHex.bytes(unsignedHex))
                #expect(unsigned.serialized().hexString == unsignedHex)
                // The SINGLE|ANYONECANPAY example also signs a copy with inputs and outputs swapped.
                #expect(Set(unsigned.inputs.map(\.previousOutput)) == Set(signed.inputs.map(\.previousOutput)))
                #expect(Set(unsigned.outputs) == Set(signed.outputs))
                #expect(unsigned.lockTime == signed.lockTime)
            }
        }
    }

    /// The first input of the native P2WPKH and native P2WSH (SINGLE) examples is a legacy P2PK spend signed with
    /// SIGHASH_ALL: its signature must verify against the legacy signature hash.
    @Test(
        "Legacy P2PK inputs of the examples verify against the legacy sighash",
        arguments: try BIP143Vectors.exampleList())
    func legacyInputs(_ example: BIP143Vectors.Example) throws {
        guard let signedHex = example.signedTxs.first else { return }
        let signed = try Transaction(serialized: TestHex.bytes(signedHex))
        for (index, input) in example.inputs.enumerated() {
            let scriptPubKey = try Script(hex: input["scriptPubKey"] ?? "")
            guard case .p2pk(let publicKey) = scriptPubKey.template else { continue }
            let pushes = try signed.inputs[index].scriptSig.operations()
            let signatureBytes = try #require(pushes.first?.data)
            let type = SighashType(rawValue: UInt32(signatureBytes.last ?? 0))
            #expect(type == .all)
            let cache = SighashCache(signed)
            let digest = try cache.legacySignatureHash(inputIndex: index, scriptCode: scriptPubKey, type: type)
            #expect(publicKey.verify(try ECDSASignature(der: signatureBytes.dropLast()), digest: digest))
            // The scriptSig does not take part: the unsigned transaction gives the same hash.
            let unsigned = try Transaction(serialized: TestHex.bytes(example.unsignedTx ?? ""))
            #expect(
                try SighashCache(unsigned).legacySignatureHash(inputIndex: index, scriptCode: scriptPubKey, type: type)
                    == digest)
        }
    }
}

/// n − s for the secp256k1 order n, on 32-byte big-endian values (to turn a high-S signature into its low-S twin).
func negatedModN(_ s: some Collection<UInt8>) -> [UInt8] {
    let n = TestHex.bytes("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
    let value = Array(s)
    var out = [UInt8](repeating: 0, count: 32)
    var borrow = 0
    for i in stride(from: 31, through: 0, by: -1) {
        var digit = Int(n[i]) - Int(value[i]) - borrow
        borrow = digit < 0 ? 1 : 0
        if digit < 0 { digit += 256 }
        out[i] = UInt8(digit)
    }
    return out
}

@Suite("Legacy sighash rules")
struct LegacySighashTests {
    let tx: Transaction

    init() throws {
        tx = Transaction(
            version: 1,
            inputs: [
                TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 1, count: 32)), vout: 0)),
                TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 2, count: 32)), vout: 1)),
            ],
            outputs: [TxOut(value: .zero, scriptPubKey: .opReturn([]))])
    }

    @Test("SIGHASH_SINGLE with no matching output signs the number one (Core's bug)")
    func singleBug() throws {
        let hash = try SighashCache(tx).legacySignatureHash(inputIndex: 1, scriptCode: .empty, type: .single)
        #expect(hash == [1] + [UInt8](repeating: 0, count: 31))
        let inRange = try SighashCache(tx).legacySignatureHash(inputIndex: 0, scriptCode: .empty, type: .single)
        #expect(inRange != hash)
    }

    @Test("OP_CODESEPARATOR is removed from the script code")
    func codeSeparator() throws {
        let cache = SighashCache(tx)
        let with = Script([.op(.op1), .op(.codeSeparator), .op(.checkSig)])
        let without = Script([.op(.op1), .op(.checkSig)])
        #expect(
            try cache.legacySignatureHash(inputIndex: 0, scriptCode: with, type: .all)
                == cache.legacySignatureHash(inputIndex: 0, scriptCode: without, type: .all))
        // A 0xab byte inside a push is data, not a separator.
        let pushed = Script([.push([0xAB]), .op(.checkSig)])
        #expect(
            try cache.legacySignatureHash(inputIndex: 0, scriptCode: pushed, type: .all)
                != cache.legacySignatureHash(
                    inputIndex: 0, scriptCode: Script([.push([]), .op(.checkSig)]), type: .all))
    }

    @Test("Out-of-range input index is a typed error")
    func indexOutOfRange() {
        #expect(throws: SighashError.inputIndexOutOfRange(index: 2, inputCount: 2)) {
            try SighashCache(tx).legacySignatureHash(inputIndex: 2, scriptCode: .empty, type: .all)
        }
    }

    /// Cases from Bitcoin Core's script_tests.cpp `script_FindAndDelete`.
    @Test(
        "FindAndDelete matches only at operation boundaries",
        arguments: [
            ("5152", "52", "51"),
            ("0302ff030302ff03", "0302ff03", ""),
            ("0302ff030302ff03", "02", "0302ff030302ff03"),
            ("0302ff030302ff03", "ff", "0302ff030302ff03"),
            ("0302ff030302ff03", "03", "02ff0302ff03"),
            ("0003feed", "03feed", "00"),
            ("0003feed", "00", "03feed"),
            ("02feed5169", "feed51", "02feed5169"),
            ("02feed5169", "02feed51", "69"),
            ("516902feed5169", "feed51", "516902feed5169"),
            ("516902feed5169", "02feed51", "516969"),
            ("00005151", "0051", "0051"),
            ("000051005151", "0051", "0051"),
        ])
    func findAndDelete(_ script: String, _ pattern: String, _ expected: String) throws {
        #expect(try Script(hex: script).findAndDelete(Script(hex: pattern)).hexString == expected)
    }
}
