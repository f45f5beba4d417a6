import AirgapTransport
import Bitcoin
import ChainCore
import Descriptors
import Foundation
import TestSupport
import Testing

@testable import Watcher
@testable import WatcherFlows

/// The decisions of the PSBT flows (`send`, `bump`, `finalize`, `combine`, `broadcast`, `inspect`) that used to live in
/// the executable: the checked fee sum, the signed-size estimate, the recovery path and its valid-from height, the
/// wallet's net amount, the choice of finalizer, combining, and what a node's rejection means.
@Suite("PSBT flows: send, finalize, combine, broadcast, inspect")
struct PSBTFlowTests {
    /// An unsigned PSBT of a plan paying 100,000 sat from two coins of 60,000 and 80,000, its plan and its store.
    static func plannedPSBT(seed: UInt64 = 1) async throws -> (PSBT, SpendPlan, Store, WalletRecord) {
        let (store, wallet, account, _) = try await SpendTests.fundedWallet([60_000, 80_000])
        var generator = SplitMix64(seed: seed)
        let plan = try SpendPlanner(store: store, wallet: wallet).plan(
            recipients: [Recipient(address: try SpendTests.payee, amount: try Amount(sats: 100_000))],
            feeRate: try FeeRate(satsPerVByte: 5), using: &generator)
        return (try plan.psbt(account: account), plan, store, wallet)
    }

    /// `psbt` with input `index` claiming to spend `sats` (a witness UTXO, which the fee sum prefers).
    static func claiming(_ psbt: PSBT, input index: Int, sats: UInt64) throws -> PSBT {
        var copy = psbt
        let script = try #require(copy.inputs[index].spentOutput(vout: try copy.outpoint(of: index).vout)).scriptPubKey
        copy.inputs[index].map.set(
            PSBTKeyType.Input.witnessUTXO,
            value: TxOut(value: try Amount(sats: sats), scriptPubKey: script).serialized())
        return copy
    }

    @Test("the fee is the inputs less the outputs; inputs claiming more than 21,000,000 BTC in all give no fee")
    func checkedFee() async throws {
        let (psbt, plan, _, _) = try await Self.plannedPSBT()
        let tx = try psbt.unsignedTransaction()
        #expect(PSBTFee.fee(psbt, transaction: tx) == plan.fee)
        // Each input at 21,000,000 BTC: the sum passes MAX_MONEY (an unchecked UInt64 sum showed a fee of 42M BTC).
        var crafted = try Self.claiming(psbt, input: 0, sats: Amount.maxMoney.sats)
        crafted = try Self.claiming(crafted, input: 1, sats: Amount.maxMoney.sats)
        #expect(PSBTFee.fee(crafted, transaction: tx) == nil)
        // One input claiming 1 BTC: the fee follows the claim (the signer checks claims against the previous tx).
        let other = try #require(PSBTFee.inputValues(psbt)[1]).sats
        let outputs = tx.outputs.reduce(UInt64(0)) { $0 + $1.value.sats }
        let one = try Self.claiming(psbt, input: 0, sats: 100_000_000)
        #expect(PSBTFee.fee(one, transaction: tx)?.sats == 100_000_000 + other - outputs)
        // Inputs worth less than the outputs: no fee rather than a wrapped-around one.
        let short = try Self.claiming(psbt, input: 0, sats: 1)
        #expect(PSBTFee.fee(short, transaction: tx) == nil)
    }

    @Test("a summary marks the change, shows the fee rate over the estimated size, and says when the fee is unknown")
    func summary() async throws {
        let (_, plan, store, wallet) = try await Self.plannedPSBT()
        let planner = try SpendPlanner(store: store, wallet: wallet)
        // Two P2WPKH inputs signed (68 vB each, 41 of them in the unsigned transaction) and two P2WPKH outputs:
        // 154 vB unsigned + 2 × 27.
        #expect(plan.transaction.vsize == 154)
        #expect(planner.estimatedVSize(of: plan) == 208)
        let change = try #require(plan.change)
        let own: Set<Script> = [plan.outputs[change.position].scriptPubKey]
        let known = TransactionSummary(plan.transaction, fee: plan.fee, vsize: 208, network: .main, own: own)
        #expect(known.outputs.filter(\.own).count == 1)
        #expect(known.lines.last?.hasPrefix("fee: \(plan.fee.btcString) BTC (") == true)
        let unknown = TransactionSummary(plan.transaction, fee: nil, vsize: 208, network: .main, own: own)
        #expect(unknown.feeRate == nil)
        #expect(unknown.lines.last == "fee: unknown (the PSBT does not carry every input's value)")
    }

    @Test("send keeps the PSBT it writes, plans a dry run without one, and refuses a bad or foreign address")
    func sendFlow() async throws {
        let (store, wallet, _, _) = try await SpendTests.fundedWallet([60_000, 80_000])
        let flow = SendFlow(store: store, wallet: wallet)
        var asked = false
        func estimate(_ blocks: Int) async throws -> FeeRate {
            asked = true
            return try FeeRate(satsPerVByte: 3)
        }
        var generator = SplitMix64(seed: 7)
        let payee = try SpendTests.payee.description
        let payment = SendRequest.Payment(address: payee, amount: try Amount(sats: 100_000))
        let report = try await flow.run(
            SendRequest(payments: [payment], rate: .fixed(try FeeRate(satsPerVByte: 5))), feeEstimate: estimate,
            using: &generator)
        #expect(!asked)
        let psbt = try #require(report.psbt)
        #expect(try PSBTArchive(store: store).load(psbt.unsignedTxid()) != nil)
        #expect(report.summary.fee == report.plan.fee)
        let dry = try await flow.run(
            SendRequest(payments: [payment], rate: .target(blocks: 6), dryRun: true), feeEstimate: estimate,
            using: &generator)
        #expect(asked)
        #expect(dry.psbt == nil)
        #expect(try PSBTArchive(store: store).load(dry.plan.transaction.txid) == nil)
        await #expect {
            _ = try await flow.run(
                SendRequest(payments: [.init(address: "bc1qnotanaddress", amount: nil)], rate: .target(blocks: 6)),
                feeEstimate: estimate, using: &generator)
        } throws: { error in
            guard case PSBTFlowError.invalidAddress(let text, _) = error else { return false }
            return text == "bc1qnotanaddress"
        }
        // A testnet address for this mainnet wallet: the wallet's network named.
        await #expect(
            throws: SpendError.wrongNetwork(
                address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", wallet: .main)
        ) {
            _ = try await flow.run(
                SendRequest(
                    payments: [.init(address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", amount: nil)],
                    rate: .target(blocks: 6)),
                feeEstimate: estimate, using: &generator)
        }
    }

    @Test("--recovery needs a miniscript policy; a wsh policy gives its timelocked path")
    func recoveryPath() throws {
        let single = try Account(record: try StoreTests.makeWallet(try Store(directory: StoreTests.tempDir())))
        #expect(throws: PSBTFlowError.noRecoveryPath) { try SendFlow.recoveryPath(of: single, signers: nil) }
        let policy = try Descriptor(string: PolicyPathTests.inheritance)
        let account = Account(external: policy, change: nil, network: .main)
        #expect(try SendFlow.recoveryPath(of: account, signers: nil).relativeTimelock == 10)
    }

    @Test("a recovery spend is valid from the latest coin's height plus its lock; an unconfirmed coin cannot be told")
    func recoveryValidFrom() {
        let path = PolicyPath(relativeTimelock: 10, absoluteTimelock: nil, signers: ["0ddba11a"])
        #expect(RecoveryValidity.validFrom(path: path, coinHeights: [90, 100], lockTime: 0) == 109)
        #expect(RecoveryValidity.validFrom(path: path, coinHeights: [90, nil], lockTime: 0) == nil)
        let absolute = PolicyPath(relativeTimelock: nil, absoluteTimelock: 500, signers: ["0ddba11a"])
        #expect(RecoveryValidity.validFrom(path: absolute, coinHeights: [nil], lockTime: 500) == 500)
        // A time-based lock (above 500,000,000) is not told in blocks.
        #expect(RecoveryValidity.validFrom(path: absolute, coinHeights: [90], lockTime: 600_000_000) == nil)
    }

    @Test("the net amount is the wallet's outputs less its inputs; an unknown or impossible input amount gives none")
    func netAmount() throws {
        let net = try #require(
            NetAmount(
                ownInputs: [try Amount(sats: 100_000), try Amount(sats: 50_000)], ownOutputs: [try Amount(sats: 30_000)]
            )
        )
        #expect(net.sats == -120_000)
        #expect(net.btcString == "-0.00120000")
        #expect(NetAmount(ownInputs: [], ownOutputs: [try Amount(sats: 5)])?.sats == 5)
        #expect(NetAmount(ownInputs: [try Amount(sats: 100_000), nil], ownOutputs: []) == nil)
        #expect(NetAmount(ownInputs: [Amount.maxMoney, Amount.maxMoney], ownOutputs: []) == nil)
    }

    @Test("the finalizer refuses an unsigned PSBT and names the input that lacks a signature; signed inputs finalize")
    func finalizerChoice() async throws {
        let (psbt, _, _, _) = try await Self.plannedPSBT()
        let finalizer = PSBTFinalizer(descriptors: [])
        #expect(throws: PSBTFlowError.notSigned) { try finalizer.finalize(psbt) }
        // A P2WPKH input with its key's signature is finalized by the generic finalizer (it assembles, the node
        // verifies); the other, unsigned, input is named.
        var signed = psbt
        let key = try #require(signed.inputs[0].bip32Derivations.first).publicKey
        signed.inputs[0].map.set(
            PSBTKeyType.Input.partialSig, keyData: key.compressed,
            value: [0x30] + [UInt8](repeating: 1, count: 69) + [1])
        #expect {
            try finalizer.finalize(signed)
        } throws: { error in
            guard case PSBTFlowError.cannotFinalize(let problems) = error else { return false }
            return problems.count == 1 && problems[0].hasPrefix("input 1:")
        }
        let key1 = try #require(signed.inputs[1].bip32Derivations.first).publicKey
        signed.inputs[1].map.set(
            PSBTKeyType.Input.partialSig, keyData: key1.compressed,
            value: [0x30] + [UInt8](repeating: 2, count: 69) + [1])
        let finalized = try finalizer.finalize(signed)
        let complete = finalized.inputs.allSatisfy { $0.isFinalized }
        #expect(complete)
        #expect(try FinalizeReport(signed, finalizer: finalizer).transaction.inputs.count == 2)
    }

    @Test("combining PSBTs of different transactions is refused; the same transaction's combine and count signatures")
    func combine() async throws {
        let (a, _, store, _) = try await Self.plannedPSBT(seed: 1)
        let (b, _, _, _) = try await Self.plannedPSBT(seed: 9)
        let archive = PSBTArchive(store: store)
        #expect(throws: PSBTFlowError.differentTransactions) { try CombineReport(psbts: [a, b], archive: archive) }
        var signed = a
        let key = try #require(signed.inputs[0].bip32Derivations.first).publicKey
        signed.inputs[0].map.set(
            PSBTKeyType.Input.partialSig, keyData: key.compressed,
            value: [0x30] + [UInt8](repeating: 1, count: 69) + [1])
        let report = try CombineReport(psbts: [a, signed], archive: archive)
        #expect(report.signatures == [1, 0])
        #expect(report.txid == (try a.unsignedTxid()))
        #expect(!report.usedKeptPSBT)
        try archive.save(a)
        #expect(try CombineReport(psbts: [signed], archive: archive).usedKeptPSBT)
    }

    @Test("a node's 'already known' is no error, any other rejection is")
    func alreadyKnown() {
        #expect(BroadcastFlow.meansAlreadyKnown("txn-already-in-mempool"))
        #expect(BroadcastFlow.meansAlreadyKnown("Transaction already in block chain"))
        #expect(!BroadcastFlow.meansAlreadyKnown("bad-txns-inputs-missingorspent"))
        #expect(!BroadcastFlow.meansAlreadyKnown("non-BIP68-final"))
    }

    @Test("broadcast announces the outputs and fee before it connects, and returns the node's txid")
    func broadcastFlow() async throws {
        let (psbt, _, store, wallet) = try await Self.plannedPSBT()
        var lines: [String] = []
        var connected = false
        let tx = try psbt.unsignedTransaction()
        let report = try await BroadcastFlow(store: store, wallet: wallet).run(
            .transaction(tx),
            connect: {
                connected = true
                #expect(!lines.isEmpty)
                return FixedChainSource(tipHeight: 100, transactions: [], heights: [:])
            }, announce: { lines = $0 })
        #expect(connected)
        #expect(report.txid == tx.txid)
        #expect(lines.first == "sending \(tx.txid.hexString):")
        #expect(report.summary.fee == nil)
        // An unsigned PSBT never reaches the node.
        connected = false
        await #expect(throws: PSBTFlowError.notSigned) {
            _ = try await BroadcastFlow(store: store, wallet: wallet).run(
                .psbt(psbt),
                connect: {
                    connected = true
                    return FixedChainSource(tipHeight: 100, transactions: [], heights: [:])
                },
                announce: { _ in })
        }
        #expect(!connected)
    }
}

/// `convert`'s decisions, moved from the executable: the PSBT check and version conversion, what `--kind` accepts,
/// the output format when `--to` is not given, and what fits one QR code.
@Suite("convert: payload conversion")
struct PayloadConversionTests {
    static func conversion(format: ConvertFormat? = nil, psbtVersion: Int? = nil, qr: Bool = false)
        -> PayloadConversion
    {
        PayloadConversion(
            kind: nil, psbtVersion: psbtVersion, format: format, qrFraming: nil, encoder: FrameEncoder(), qr: qr,
            loops: false)
    }

    static func run(_ conversion: PayloadConversion, _ payload: Payload, framing: FrameFormat = .binary) throws
        -> ConversionReport
    {
        try conversion.run(payload, framing: framing, codes: 0, wallet: nil, adapt: { payload, _ in payload })
    }

    @Test("a PSBT converts to version 2 and back byte for byte; bytes that are not a PSBT are refused")
    func psbtVersions() async throws {
        let (psbt, _, _, _) = try await PSBTFlowTests.plannedPSBT()
        let v2 = try Self.run(Self.conversion(psbtVersion: 2), .psbt(psbt.serialized()))
        #expect(v2.psbtVersion == 2)
        let v0 = try Self.run(Self.conversion(psbtVersion: 0), v2.payload)
        #expect(PayloadConversion.bytes(v0.payload) == psbt.serialized())
        #expect(throws: ConversionError.self) {
            try Self.run(Self.conversion(), .psbt([0x70, 0x73, 0x62, 0x74, 0xff, 0x00]))
        }
        #expect(throws: ConversionError.self) { try Self.run(Self.conversion(psbtVersion: 2), .text("hello")) }
    }

    @Test("the input's framing is kept when --to is not given; --kind takes only a PSBT or a multisig: text")
    func defaults() async throws {
        let (psbt, _, _, _) = try await PSBTFlowTests.plannedPSBT()
        let kept = try Self.run(Self.conversion(), .psbt(psbt.serialized()), framing: .hex)
        #expect(kept.format == .hex)
        #expect(kept.texts?.count == 1)
        #expect(kept.texts?.first?.hasPrefix("70736274ff") == true)
        var kind = Self.conversion()
        kind.kind = .psbt
        #expect(throws: ConversionError.self) { try Self.run(kind, .text("hello")) }
        #expect(try Self.run(kind, .psbt(psbt.serialized())).format == .binary)
    }

    @Test("base64 too long for one QR code is refused; UR frames carry it")
    func oneCodeLimit() throws {
        let large = Payload.bytes([UInt8](repeating: 7, count: 3000))
        #expect(throws: ConversionError.self) { try Self.run(Self.conversion(format: .base64, qr: true), large) }
        #expect(try Self.run(Self.conversion(format: .base64), large).texts?.count == 1)
    }
}
