import Bitcoin
import BitcoinCrypto
import TestSupport
import Testing

@Suite("Script parsing, templates and multisig")
struct ScriptTests {
    let keyA = "02c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5"
    let keyB = "03e60fce93b59e9ec53011aabc21c23e97b2a31369b87a5ae9c44ee89e2a6dec0a"
    let keyC = "0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"

    @Test("Malformed pushes are typed errors", arguments: ["01", "4c", "4c05aa", "4d0100", "4e01000000", "4dffff00"])
    func truncatedPush(_ hex: String) throws {
        let script = try Script(hex: hex)
        #expect(throws: ScriptError.self) { try script.operations() }
        #expect(script.description.hasSuffix("[error]"))
    }

    @Test("Pushes parse with their opcodes and re-encode")
    func pushes() throws {
        let data = [UInt8](repeating: 7, count: 80)
        let script = Script([.push(data), .number(0), .number(16), .number(17), .number(-1), .op(.checkSig)])
        let operations = try script.operations()
        #expect(operations[0] == .push(.pushData1, data))
        #expect(operations[1] == .push(.op0, []))
        #expect(operations[2] == .op(.op16))
        #expect(operations[3] == .push(Opcode(rawValue: 1), [17]))
        #expect(operations[4] == .op(.op1Negate))
        #expect(Script(operations) == script)
        #expect(Script([.number(128)]).hexString == "028000")
        #expect(Script([.number(-128)]).hexString == "028080")
    }

    @Test("Templates are built and classified")
    func templates() throws {
        let key = try PublicKey(serialized: TestHex.bytes(keyA))
        let hash = PubkeyHash(key)
        #expect(Script.p2pkh(hash).template == .p2pkh(hash))
        #expect(Script.p2wpkh(hash).template == .p2wpkh(hash))
        #expect(Script.p2pk(key).template == .p2pk(key))
        let redeem = Script.p2wpkh(hash)
        #expect(redeem.p2shWrapped.template == .p2sh(ScriptHash(redeem)))
        #expect(redeem.p2wshWrapped.template == .p2wsh(WitnessScriptHash(redeem)))
        let xOnly = key.xOnly.key
        #expect(Script.p2tr(outputKey: xOnly).template == .p2tr(xOnly))
        #expect(Script.opReturn([1, 2]).template == .nullData([1, 2]))
        let future = try WitnessProgram(version: 2, program: [1, 2])
        #expect(future.scriptPubKey.template == .witnessProgram(future))
        #expect(Script([.op(.dup)]).template == .nonStandard)
        #expect(throws: ScriptError.invalidWitnessProgramLength(version: 0, length: 21)) {
            try WitnessProgram(version: 0, program: [UInt8](repeating: 0, count: 21))
        }
        #expect(throws: ScriptError.invalidHashLength(expected: 20, actual: 19)) {
            try PubkeyHash(bytes: [UInt8](repeating: 0, count: 19))
        }
    }

    @Test("multisig and sortedmulti (BIP67 order)")
    func multisig() throws {
        let keys = try [keyA, keyB, keyC].map { try PublicKey(serialized: TestHex.bytes($0)) }
        let script = try Script.multisig(threshold: 2, keys: keys)
        #expect(script.hexString == "52" + [keyA, keyB, keyC].map { "21" + $0 }.joined() + "53ae")
        #expect(script.template == .multisig(threshold: 2, keys: keys))
        let sorted = try Script.multisig(threshold: 2, keys: keys, sorted: true)
        #expect(sorted.hexString == "52" + [keyC, keyA, keyB].map { "21" + $0 }.joined() + "53ae")
        #expect(throws: ScriptError.invalidThreshold(threshold: 4, keyCount: 3)) {
            try Script.multisig(threshold: 4, keys: keys)
        }
        #expect(throws: ScriptError.invalidThreshold(threshold: 0, keyCount: 3)) {
            try Script.multisig(threshold: 0, keys: keys)
        }
    }

    @Test("multi_a (BIP387): CHECKSIG, CHECKSIGADD..., k NUMEQUAL")
    func multiA() throws {
        let keys = try [keyA, keyB, keyC].map { try PublicKey(serialized: TestHex.bytes($0)).xOnly.key }
        let script = try Script.multiA(threshold: 2, keys: keys)
        let x = [keyA, keyB, keyC].map { String($0.dropFirst(2)) }
        #expect(script.hexString == "20\(x[0])ac20\(x[1])ba20\(x[2])ba529c")
        let sorted = try Script.multiA(threshold: 1, keys: keys, sorted: true)
        #expect(sorted.hexString == "20\(x[2])ac20\(x[0])ba20\(x[1])ba519c")
        #expect(throws: ScriptError.invalidThreshold(threshold: 3, keyCount: 2)) {
            try Script.multiA(threshold: 3, keys: Array(keys.prefix(2)))
        }
    }

    @Test("Control blocks reject bad lengths and keys")
    func controlBlock() {
        #expect(throws: TaprootError.invalidControlBlockLength(34)) {
            try ControlBlock(serialized: [UInt8](repeating: 0xC0, count: 34))
        }
        #expect(throws: TaprootError.invalidInternalKey) {
            try ControlBlock(serialized: [0xC0] + [UInt8](repeating: 0xFF, count: 32))
        }
    }
}

@Suite("Amount and FeeRate")
struct UnitsTests {
    @Test(
        "Amount text forms",
        arguments: [
            ("0.001btc", UInt64(100_000)), ("100000sat", 100_000), ("100000 sats", 100_000), ("1", 100_000_000),
            ("0.00000001", 1), (".5", 50_000_000), ("21000000", 2_100_000_000_000_000), ("1.000000000", 100_000_000),
            ("0.5 BTC", 50_000_000),
        ])
    func parse(_ text: String, _ sats: UInt64) throws {
        #expect(try Amount(string: text).sats == sats)
    }

    @Test("Amount errors are named")
    func errors() {
        #expect(throws: AmountError.tooManyDecimals(9)) { try Amount(string: "0.000000001") }
        #expect(throws: AmountError.negative) { try Amount(string: "-1") }
        #expect(throws: AmountError.exceedsMaxMoney) { try Amount(string: "21000000.00000001") }
        #expect(throws: AmountError.exceedsMaxMoney) { try Amount(string: "99999999999999999999999sat") }
        #expect(throws: AmountError.invalidFormat("1.5sat")) { try Amount(string: "1.5sat") }
        #expect(throws: AmountError.invalidFormat("abc")) { try Amount(string: "abc") }
        #expect(throws: AmountError.invalidFormat("")) { try Amount(string: "") }
        #expect(throws: AmountError.negative) { try Amount.zero.subtracting(Amount(sats: 1)) }
        #expect(throws: AmountError.exceedsMaxMoney) { try Amount.maxMoney.adding(Amount(sats: 1)) }
        #expect(throws: AmountError.exceedsMaxMoney) { try Amount(sats: UInt64.max) }
    }

    @Test("Amount formats as BTC with 8 decimals")
    func format() throws {
        #expect(try Amount(sats: 100_000).btcString == "0.00100000")
        #expect(Amount.maxMoney.btcString == "21000000.00000000")
        #expect(try Amount(sats: 123_456_789).description == "1.23456789 BTC")
    }

    @Test("Fee rates keep fractions and round fees up")
    func feeRate() throws {
        let rate = try FeeRate(string: "2.5")
        #expect(rate.satsPerKVB == 2500)
        #expect(try rate.fee(forVSize: 141).sats == 353)  // 352.5 rounds up
        #expect(try FeeRate(string: "1 sat/vB").satsPerKVB == 1000)
        #expect(try FeeRate(fee: Amount(sats: 1000), vsize: 400).description == "2.5 sat/vB")
        #expect(throws: FeeRateError.tooManyDecimals(4)) { try FeeRate(string: "0.1234") }
        #expect(throws: FeeRateError.invalidFormat("-1")) { try FeeRate(string: "-1") }
        #expect(throws: FeeRateError.overflow) { try FeeRate(satsPerKVB: UInt64.max).fee(forVSize: 2) }
        #expect(throws: FeeRateError.zeroSize) { try FeeRate(fee: .zero, vsize: 0) }
    }
}
