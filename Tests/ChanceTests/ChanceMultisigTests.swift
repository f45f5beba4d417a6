import Bitcoin
import BitcoinCrypto
import Chance
import Codecs
import Foundation
import TestSupport
import Testing

/// The Chance wallet `multisig:` text codec (docs/architecture.md section 3).
///
/// The keys are made here from fixed
/// secrets and the signatures by libsecp256k1; interop with an independent implementation (embit) and acceptance by
/// libbitcoinkernel are shown end to end in Tests/e2e/test_chance_multisig.py.
@Suite("Chance multisig: texts: strict parsing, signatures by key position, PSBT both ways, final transaction")
struct ChanceMultisigTests {
    struct Fixture {
        let keys: [PrivateKey]
        let redeem: Script
        let transaction: Transaction
        let previous: Transaction

        init(inputs: Int = 1) throws {
            keys = try (1...3).map { n in
                try PrivateKey(secret: SecretBytes(copying: SHA256.hash(Array("chance cosigner \(n)".utf8))))
            }
            let redeem = try Script.multisig(threshold: 2, keys: keys.map(\.publicKey))
            self.redeem = redeem
            let paid = try Amount(sats: 50_000)
            let sent = try Amount(sats: 40_000 * UInt64(inputs))
            let previous = Transaction(
                version: 2,
                inputs: [
                    TxIn(previousOutput: OutPoint(txid: try Txid(bytes: [UInt8](repeating: 7, count: 32)), vout: 0))
                ],
                outputs: (0..<inputs).map { _ in
                    TxOut(value: paid, scriptPubKey: .p2sh(ScriptHash(redeem)))
                })
            self.previous = previous
            transaction = Transaction(
                version: 2,
                inputs: (0..<inputs).map { TxIn(previousOutput: OutPoint(txid: previous.txid, vout: UInt32($0))) },
                outputs: [
                    TxOut(
                        value: sent,
                        scriptPubKey: .p2sh(ScriptHash(Script([.op(.op1)]))))
                ])
        }

        func signatures(_ key: Int, over tx: Transaction? = nil) throws -> [[UInt8]] {
            let signed = tx ?? transaction
            return try signed.inputs.indices.map { index in
                let digest = try SighashCache(signed).legacySignatureHash(
                    inputIndex: index, scriptCode: redeem, type: SighashType(rawValue: 1))
                return try keys[key].signECDSA(digest: digest).der + [0x01]
            }
        }

        func text(_ signatures: [Int: [[UInt8]]]) -> String {
            let parts = signatures.sorted { $0.key < $1.key }.map { position, list in
                "\"\(position)\":[" + list.map { "\"\($0.hexString)\"" }.joined(separator: ",") + "]"
            }
            return "multisig:{\"rawTx\":\"\(transaction.serialized().hexString)\",\"redeemScriptHex\":\""
                + redeem.hexString + "\",\"keySignatures\":{" + parts.joined(separator: ",") + "}}"
        }
    }

    @Test("A text parses, keeps its signatures by position and prints back byte for byte")
    func roundTrip() throws {
        let fixture = try Fixture(inputs: 2)
        let text = fixture.text([1: try fixture.signatures(1)])
        let parsed = try ChanceMultisig(string: "  " + text + "\n")
        #expect(parsed.signedPositions == [1])
        #expect(parsed.threshold == 2 && parsed.keys.count == 3)
        #expect(!parsed.isComplete)
        #expect(parsed.description == text)
        // Whitespace inside the JSON (as another implementation may write it) reads the same.
        let spaced = text.replacingOccurrences(of: ",", with: ", ").replacingOccurrences(of: ":{", with: ": {")
        #expect(try ChanceMultisig(string: spaced) == parsed)
    }

    @Test("A signature under another key's position is refused; under its own it passes")
    func wrongPosition() throws {
        let fixture = try Fixture()
        let signature = try fixture.signatures(0)
        #expect(throws: ChanceMultisigError.signatureDoesNotVerify(position: 2, input: 0)) {
            try ChanceMultisig(string: fixture.text([2: signature]))
        }
        #expect(try ChanceMultisig(string: fixture.text([0: signature])).signedPositions == [0])
    }

    @Test("A signature of another transaction is refused; this transaction's passes")
    func anotherTransaction() throws {
        let fixture = try Fixture()
        var other = fixture.transaction
        other.outputs[0].value = try Amount(sats: 39_000)
        #expect(throws: ChanceMultisigError.signatureDoesNotVerify(position: 1, input: 0)) {
            try ChanceMultisig(string: fixture.text([1: try fixture.signatures(1, over: other)]))
        }
        #expect(try ChanceMultisig(string: fixture.text([1: try fixture.signatures(1)])).signedPositions == [1])
    }

    @Test("Malformed texts are refused by name")
    func malformed() throws {
        let fixture = try Fixture()
        let good = fixture.text([:])
        let raw = fixture.transaction.serialized().hexString
        let cases: [(String, ChanceMultisigError)] = [
            (String(good.dropFirst(9)), .missingPrefix),
            ("multisig:[1]", .invalidJSON("not an object")),
            ("multisig:{", .invalidJSON("malformed JSON")),
            (good.replacingOccurrences(of: "}}", with: "},\"fee\":1}"), .unknownField("fee")),
            // A field named twice: two readers would see two different texts (strict JSON).
            (
                good.replacingOccurrences(of: "\"rawTx\":", with: "\"rawTx\":\"00\",\"rawTx\":"),
                .invalidJSON("\(JSONError.duplicateMember(name: "rawTx", offset: 14))")
            ),
            (good.replacingOccurrences(of: "\"rawTx\":\"\(raw)\",", with: ""), .missingField("rawTx")),
            (
                good.replacingOccurrences(of: raw, with: raw + "0"),
                .invalidHex(field: "rawTx", reason: "\(EncodingError.oddLength(raw.count + 1))")
            ),
            (good.replacingOccurrences(of: "{}", with: "{\"3\":[]}"), .invalidPosition("3", keyCount: 3)),
            (good.replacingOccurrences(of: "{}", with: "{\"01\":[]}"), .invalidPosition("01", keyCount: 3)),
            (
                good.replacingOccurrences(of: "{}", with: "{\"1\":[]}"),
                .signatureCount(position: 1, expected: 1, actual: 0)
            ),
            (
                good.replacingOccurrences(of: "{}", with: "{\"1\":[\"3006020101020101\"]}"),
                .invalidSignature(position: 1, input: 0, reason: "too short")
            ),
        ]
        for (text, expected) in cases {
            #expect(throws: expected) { try ChanceMultisig(string: text) }
        }
        // A non-multisig redeem script, trailing bytes after the transaction, a signed input.
        #expect(throws: ChanceMultisigError.notMultisigRedeemScript) {
            try ChanceMultisig(string: good.replacingOccurrences(of: fixture.redeem.hexString, with: "51"))
        }
        #expect(throws: ChanceMultisigError.self) {
            try ChanceMultisig(string: good.replacingOccurrences(of: raw, with: raw + "00"))
        }
        var signedInput = fixture.transaction
        signedInput.inputs[0].scriptSig = Script([.op(.op1)])
        #expect(throws: ChanceMultisigError.transactionNotUnsigned(input: 0)) {
            try ChanceMultisig(transaction: signedInput, redeemScript: fixture.redeem)
        }
    }

    @Test("A signature with a sighash type other than ALL is refused")
    func sighashAll() throws {
        let fixture = try Fixture()
        var signature = try fixture.signatures(0)[0]
        signature[signature.count - 1] = 0x02
        #expect(throws: ChanceMultisigError.self) { try ChanceMultisig(string: fixture.text([0: [signature]])) }
        signature[signature.count - 1] = 0x01
        #expect(try ChanceMultisig(string: fixture.text([0: [signature]])).signedPositions == [0])
    }

    @Test("Combining texts of one transaction adds positions; of another transaction it is refused")
    func combine() throws {
        let fixture = try Fixture(inputs: 2)
        let a = try ChanceMultisig(string: fixture.text([0: try fixture.signatures(0)]))
        let b = try ChanceMultisig(string: fixture.text([2: try fixture.signatures(2)]))
        let both = try a.combined(with: [b])
        #expect(both.signedPositions == [0, 2] && both.isComplete)
        var otherTx = fixture.transaction
        otherTx.lockTime = LockTime(rawValue: 1)
        let other = try ChanceMultisig(transaction: otherTx, redeemScript: fixture.redeem)
        #expect(throws: ChanceMultisigError.self) { try a.combined(with: [other]) }
    }

    @Test(
        "The final transaction puts the first m positions' signatures in script order ")
    func finalTransaction() throws {
        let fixture = try Fixture(inputs: 2)
        let partial = try ChanceMultisig(string: fixture.text([2: try fixture.signatures(2)]))
        #expect(throws: ChanceMultisigError.incomplete(input: 0, have: 1, need: 2)) { try partial.finalTransaction() }
        var text = partial
        try text.setSignatures(try fixture.signatures(1), position: 1)
        let final = try text.finalTransaction()
        for index in final.inputs.indices {
            let pushes = try final.inputs[index].scriptSig.operations().map { $0.data }
            #expect(pushes.count == 4)
            #expect(pushes[0] == [])
            #expect(pushes[1] == text.signatures[1]![index])
            #expect(pushes[2] == text.signatures[2]![index])
            #expect(pushes[3] == fixture.redeem.bytes)
        }
        // Only the scriptSigs change (the node's acceptance is shown in Tests/e2e/test_chance_multisig.py).
        var stripped = final
        for index in stripped.inputs.indices { stripped.inputs[index].scriptSig = .empty }
        #expect(stripped == fixture.transaction)
    }

    @Test("PSBT and back: signatures as partial signatures, previous transactions checked against their inputs")
    func psbtRoundTrip() throws {
        let fixture = try Fixture(inputs: 2)
        let text = try ChanceMultisig(string: fixture.text([1: try fixture.signatures(1)]))
        let psbt = try text.psbt(previousTransactions: [fixture.previous])
        #expect(psbt.inputs.allSatisfy { $0.redeemScript == fixture.redeem && $0.nonWitnessUTXO == fixture.previous })
        #expect(psbt.inputs.allSatisfy { $0.partialSignatures.map(\.publicKey) == [fixture.keys[1].publicKey] })
        #expect(try ChanceMultisig(psbt: psbt) == text)
        #expect(try ChanceMultisig(psbt: PSBT(serialized: psbt.serialized())).description == text.description)
        // A previous transaction whose output does not pay the redeem script is refused.
        var wrong = fixture.previous
        wrong.outputs[0].scriptPubKey = Script([.op(.op1)])
        let mismatch = Transaction(version: wrong.version, inputs: wrong.inputs, outputs: wrong.outputs)
        var moved = fixture.transaction
        moved.inputs[0].previousOutput = OutPoint(txid: mismatch.txid, vout: 0)
        let movedText = try ChanceMultisig(transaction: moved, redeemScript: fixture.redeem)
        #expect(throws: ChanceMultisigError.self) { try movedText.psbt(previousTransactions: [mismatch]) }
        // A key that signed only one of two inputs cannot be written as a text.
        var half = try text.psbt()
        half.inputs[1].map.remove(PSBTKeyType.Input.partialSig)
        #expect(throws: ChanceMultisigError.self) { try ChanceMultisig(psbt: half) }
    }

    @Test("Previous transactions read from hex lines or concatenated binary")
    func previousTransactionFiles() throws {
        let fixture = try Fixture()
        let one = fixture.previous.serialized()
        let two = fixture.transaction.serialized()
        let hexFile = Array((one.hexString + "\n" + two.hexString + "\n").utf8)
        #expect(try ChanceMultisig.transactions(fileBytes: hexFile) == [fixture.previous, fixture.transaction])
        #expect(try ChanceMultisig.transactions(fileBytes: one + two) == [fixture.previous, fixture.transaction])
        #expect(throws: ChanceMultisigError.self) { try ChanceMultisig.transactions(fileBytes: Array("abc\n".utf8)) }
        #expect(throws: ChanceMultisigError.self) { try ChanceMultisig.transactions(fileBytes: one + [0x01]) }
    }
}
