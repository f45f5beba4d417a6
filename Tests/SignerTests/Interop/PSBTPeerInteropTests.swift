import Bitcoin
import BitcoinCrypto
import Descriptors
import Foundation
import SeedBackup
import Signer
import TestSupport
import Testing

/// PSBTs across implementations that were not written here (docs/architecture.md section 9): embit and BDK (bdkpython) make
/// PSBTs that Airlock signs, Airlock makes PSBTs that BDK signs, and every final transaction, finalized by Airlock and
/// by the peers, passes Bitcoin Core's script verification (libbitcoinkernel through py-bitcoinkernel, all flags).
///
/// The helpers are in `Tests/interop/psbt_peers.py`; the peers derive their keys from the mnemonics themselves, so
/// nothing on the peer side trusts Airlock's derivation. The coins are synthetic transactions paying the
/// descriptors: script verification needs only the spent outputs.
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0174.mediawiki
@Suite("PSBT interop: embit, BDK, Bitcoin Core kernel (BIP174)")
struct PSBTPeerInteropTests {
    /// BIP39 test mnemonics (the BIP39 reference vectors' first, second and last 12-word phrases).
    static let mnemonics = [
        "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
        "legal winner thank year wave sausage worth useful legal winner thank yellow",
        "zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong",
    ]

    /// The account kinds, named as `psbt_peers.py` names them.
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case wpkh
        case shWpkh = "sh-wpkh"
        case pkh, tr
        case wshMulti = "wsh-multi"

        var testDescription: String { rawValue }

        /// The account path under the master key (BIP84, 49, 44, 86, 48 script type 2), on test networks.
        var accountPath: String {
            switch self {
            case .wpkh: "84h/1h/0h"
            case .shWpkh: "49h/1h/0h"
            case .pkh: "44h/1h/0h"
            case .tr: "86h/1h/0h"
            case .wshMulti: "48h/1h/0h/2h"
            }
        }

        /// The mnemonics whose keys the account uses.
        var cosigners: [Int] { self == .wshMulti ? [0, 1, 2] : [0] }

        /// The descriptor text around the comma-separated keys.
        func descriptor(keys: [String]) -> String {
            let list = keys.joined(separator: ",")
            switch self {
            case .wpkh: return "wpkh(\(list))"
            case .shWpkh: return "sh(wpkh(\(list)))"
            case .pkh: return "pkh(\(list))"
            case .tr: return "tr(\(list))"
            case .wshMulti: return "wsh(sortedmulti(2,\(list)))"
            }
        }
    }

    enum Peer: String, CaseIterable, Sendable { case embit, bdk }

    struct Case: Sendable, CustomTestStringConvertible {
        let creator: Peer
        let kind: Kind
        var testDescription: String { "\(creator.rawValue) \(kind.rawValue)" }
    }

    static let peerCases = Peer.allCases.flatMap { creator in Kind.allCases.map { Case(creator: creator, kind: $0) } }

    static func provider(_ mnemonic: Int) throws -> SeedKeyProvider {
        try SeedKeyProvider(seed: try Mnemonic(phrase: mnemonics[mnemonic]).seed(), network: .regtest)
    }

    static func request(_ action: String, _ kind: Kind, _ extra: [String: Any] = [:]) -> [String: Any] {
        extra.merging(["action": action, "kind": kind.rawValue, "mnemonics": mnemonics]) { first, _ in first }
    }

    /// Kernel script verification of every input of `transaction`, with the spent outputs read (by embit) from
    /// `source`, the PSBT a peer or Airlock created; returns the inputs that failed, with the kernel's reason.
    static func kernelFailures(_ transaction: [UInt8], spending source: String) throws -> [String] {
        let answer = try PeerScript.call(["action": "verify", "tx": transaction.hexString, "psbt": source])
        guard let results = answer["results"] as? [[String: Any]], !results.isEmpty else {
            throw PeerScript.PeerError.malformedAnswer(action: "verify", detail: "no results")
        }
        return results.compactMap { result in
            result["valid"] as? Bool == true ? nil : "input \(result["input"] ?? "?"): \(result["error"] ?? "invalid")"
        }
    }

    /// Airlock's finalizer and extractor on a copy of `psbt`.
    static func airlockFinal(_ psbt: PSBT) throws -> Transaction {
        var copy = psbt
        let complete = copy.finalize()
        #expect(complete, "Airlock could not finalize every input")
        return try copy.extractTransaction()
    }

    /// Signs `psbt` with each of `signers` through Airlock's strict signer, one pass per seed (as separate signing
    /// devices do), and combines the results with Airlock's Combiner.
    static func airlockSign(_ psbt: PSBT, signers: [Int]) throws -> PSBT {
        var partials: [PSBT] = []
        for signer in signers {
            let report = try PSBTSigner().sign(psbt, with: try provider(signer))
            #expect(report.signedInputs == Array(psbt.inputs.indices), "seed \(signer) signed \(report.signedInputs)")
            #expect(report.skippedInputs.isEmpty)
            partials.append(report.psbt)
        }
        guard let first = partials.first else { return psbt }
        return try first.combined(with: Array(partials.dropFirst()))
    }

    @Test(
        "A peer's PSBT, signed by Airlock, finalized by Airlock, embit and BDK, passes the kernel", arguments: peerCases
    )
    func peerMadePSBT(_ test: Case) throws {
        let made = try PeerScript.call(Self.request("create", test.kind, ["creator": test.creator.rawValue]))
        let unsignedText = try PeerScript.string(made, "psbt", action: "create")
        let unsigned = try PSBT(base64: unsignedText)
        #expect(unsigned.inputs.count == 2)

        // 2-of-3: the first and the last seed sign, each through Airlock.
        let signers = test.kind == .wshMulti ? [0, 2] : [0]
        let signed = try Self.airlockSign(unsigned, signers: signers)

        // embit checks every signature Airlock made, and that the ECDSA ones are low-R and low-S.
        let check = try PeerScript.call(["action": "check_signatures", "psbt": signed.base64String])
        #expect(check["failures"] as? [String] == [])
        let expectedECDSA = test.kind == .tr ? 0 : unsigned.inputs.count * signers.count
        #expect(check["ecdsa"] as? Int == expectedECDSA)
        #expect(check["schnorr"] as? Int == (test.kind == .tr ? unsigned.inputs.count : 0))

        let airlockTx = try Self.airlockFinal(signed).serialized()
        #expect(try Self.kernelFailures(airlockTx, spending: unsignedText) == [])
        for finalizer in Peer.allCases {
            let answer = try PeerScript.call(
                Self.request("finalize", test.kind, ["finalizer": finalizer.rawValue, "psbt": signed.base64String]))
            let peerTx = try [UInt8](hex: try PeerScript.string(answer, "tx", action: "finalize"))
            #expect(try Self.kernelFailures(peerTx, spending: unsignedText) == [], "finalized by \(finalizer)")
            // Same signatures, same scripts: the peers must assemble byte-identical transactions.
            #expect(peerTx == airlockTx, "\(finalizer) finalized differently from Airlock")
        }
    }

    /// The account descriptor Airlock derives for `kind` from the mnemonics (`<0;1>/*` branches, tpub keys).
    static func airlockDescriptor(_ kind: Kind) throws -> Descriptor {
        var keys: [String] = []
        for cosigner in kind.cosigners {
            let master = try ExtendedPrivateKey(
                seed: try Mnemonic(phrase: mnemonics[cosigner]).seed(), network: .regtest)
            let account = try master.derive(try DerivationPath(string: "m/" + kind.accountPath))
            keys.append("[\(master.fingerprint)/\(kind.accountPath)]\(account.extendedPublicKey.base58String)/<0;1>/*")
        }
        return try Descriptor(string: kind.descriptor(keys: keys))
    }

    /// A synthetic transaction paying the descriptor at receive index 0 and change index 1 (and a stranger).
    static func funding(_ descriptor: Descriptor, _ kind: Kind) throws -> Transaction {
        let fake = try Txid(bytes: SHA256.hash(Array("airlock-made \(kind.rawValue)".utf8)))
        return Transaction(
            version: 2, inputs: [TxIn(previousOutput: OutPoint(txid: fake, vout: 0))],
            outputs: [
                TxOut(value: try Amount(sats: 80_000), scriptPubKey: try descriptor.scriptPubKey(at: 0, path: 0)),
                TxOut(
                    value: try Amount(sats: 1_000),
                    scriptPubKey: .p2wpkh(try PubkeyHash(bytes: [UInt8](repeating: 7, count: 20)))),
                TxOut(value: try Amount(sats: 30_000), scriptPubKey: try descriptor.scriptPubKey(at: 1, path: 1)),
            ])
    }

    @Test(
        "A PSBT Airlock creates from a descriptor, signed by BDK, finalized by Airlock, passes the kernel",
        arguments: Kind.allCases)
    func airlockMadePSBT(_ kind: Kind) throws {
        let descriptor = try Self.airlockDescriptor(kind)
        let funding = try Self.funding(descriptor, kind)
        // Taproot signs over all spent outputs, so it needs no previous transaction; the others carry it.
        let previous = kind == .tr ? nil : funding
        let coins = [
            DescriptorCoin(
                outpoint: OutPoint(txid: funding.txid, vout: 0), amount: try Amount(sats: 80_000), path: 0, index: 0,
                previousTransaction: previous),
            DescriptorCoin(
                outpoint: OutPoint(txid: funding.txid, vout: 2), amount: try Amount(sats: 30_000), path: 1, index: 1,
                previousTransaction: previous),
        ]
        let payee = Script.p2wpkh(try PubkeyHash(bytes: [UInt8](repeating: 9, count: 20)))
        let outputs = [
            TxOut(value: try Amount(sats: 90_000), scriptPubKey: payee),
            TxOut(value: try Amount(sats: 17_000), scriptPubKey: try descriptor.scriptPubKey(at: 2, path: 1)),
        ]
        let created = try PSBT(spending: coins, of: descriptor, to: outputs, change: [1: (path: 1, index: 2)])
        #expect(try PSBT(serialized: created.serialized()) == created)

        // BDK signs with wallets holding the xprv descriptors it derived itself (2-of-3: seeds 0 and 1).
        let signers = kind == .wshMulti ? [0, 1] : [0]
        let answer = try PeerScript.call(
            Self.request("sign", kind, ["signer": "bdk", "signers": signers, "psbt": created.base64String]))
        let signed = try PSBT(base64: try PeerScript.string(answer, "psbt", action: "sign"))
        #expect(signed.inputs.allSatisfy { !$0.isFinalized }, "BDK was asked not to finalize")
        if kind == .tr {
            #expect(signed.inputs.allSatisfy { $0.tapKeySignature != nil })
        } else {
            #expect(signed.inputs.allSatisfy { $0.partialSignatures.count == signers.count })
        }

        let airlockTx = try Self.airlockFinal(signed).serialized()
        #expect(try Self.kernelFailures(airlockTx, spending: created.base64String) == [])
        let bdkFinal = try PeerScript.call(
            Self.request("finalize", kind, ["finalizer": "bdk", "psbt": signed.base64String]))
        #expect(try [UInt8](hex: try PeerScript.string(bdkFinal, "tx", action: "finalize")) == airlockTx)
    }

    /// The kernel check is not a formality: one flipped bit in a signature Airlock made is rejected.
    @Test("A tampered signature fails the kernel's script check")
    func tamperedSignatureFails() throws {
        let made = try PeerScript.call(Self.request("create", .wpkh, ["creator": "embit"]))
        let unsignedText = try PeerScript.string(made, "psbt", action: "create")
        let signed = try Self.airlockSign(try PSBT(base64: unsignedText), signers: [0])
        var transaction = try Self.airlockFinal(signed)
        var stack = transaction.inputs[1].witness.items
        stack[0][10] ^= 0x01
        transaction.inputs[1].witness = Witness(stack)
        let failures = try Self.kernelFailures(transaction.serialized(), spending: unsignedText)
        #expect(failures.count == 1)
        #expect(failures.first?.hasPrefix("input 1") == true)
    }
}
