import Bitcoin
import BitcoinCrypto
import Foundation
import Signer
import TestSupport
import Testing

/// The PSBT signer against Bitcoin Core's rpc_psbt.json signer cases and the BIP174 workflow signers, and the BIP174
/// `failsSignerChecks` PSBTs, which must be refused with the reason named.
@Suite("PSBT signer: Bitcoin Core rpc_psbt.json, BIP174")
struct PSBTSignerVectorTests {
    struct CoreSignerCase: CustomTestStringConvertible, Sendable {
        let privkeys: [String]
        let psbt: String
        let result: String
        let number: Int
        var testDescription: String { "signer case \(number)" }
    }

    static func coreCases() throws -> [CoreSignerCase] {
        guard let root = try Vectors.anyJSON("psbt/bitcoin_core_rpc_psbt.json") as? [String: Any],
            let list = root["signer"] as? [[String: Any]]
        else { throw Vectors.VectorsError.malformed(path: "rpc_psbt.json", detail: "no signer list") }
        return list.enumerated().compactMap { number, item in
            guard let keys = item["privkeys"] as? [String], let psbt = item["psbt"] as? String,
                let result = item["result"] as? String
            else { return nil }
            return CoreSignerCase(privkeys: keys, psbt: psbt, result: result, number: number)
        }
    }

    static func provider(_ wifs: [String]) throws -> StaticKeyProvider {
        StaticKeyProvider(keys: try wifs.map { try WIF(base58: $0).privateKey })
    }

    /// Core's walletprocesspsbt signs, then finalizes the inputs that became complete.
    ///
    /// Where Core returns the PSBT
    /// unchanged (the BIP174 signer-check failures), Airlock refuses it with the check named and changes nothing.
    @Test("Bitcoin Core signer cases", arguments: try coreCases())
    func coreSigner(_ vector: CoreSignerCase) throws {
        let psbt = try PSBT(base64: vector.psbt)
        let signer = PSBTSigner(options: SigningOptions(allowMissingPreviousTransaction: true))
        let provider = try Self.provider(vector.privkeys)
        if vector.result == vector.psbt {
            #expect {
                _ = try signer.sign(psbt, with: provider)
            } throws: { error in
                if case .signerCheckFailed = error as? PSBTError { return true }
                return false
            }
            return
        }
        var signed = try signer.sign(psbt, with: provider).psbt
        signed.finalize()
        #expect(signed.base64String == vector.result)
    }

    /// The BIP's signatures predate low-R grinding (signer 2's first one has a 33-byte R), so they are reproduced with
    /// grinding off; with the default, every signature is low-R and low-S.
    @Test("BIP174 workflow signers 1 and 2", arguments: ["signer_1", "signer_2"])
    func workflowSigner(_ name: String) throws {
        let psbt = try PSBT(serialized: TestHex.bytes(BIP174WorkflowSteps.resultHex("updater_sighash_all")))
        let provider = try Self.provider(BIP174WorkflowSteps.keys(name))
        // Input 1 is P2SH-P2WSH with only a witness UTXO, as in the BIP: signing it needs the explicit widening.
        let plain = PSBTSigner(options: SigningOptions(allowMissingPreviousTransaction: true, grindLowR: false))
        let report = try plain.sign(psbt, with: provider)
        #expect(report.signedInputs == [0, 1])
        #expect(report.psbt.serialized().hexString == (try BIP174WorkflowSteps.resultHex(name)))

        let ground = try PSBTSigner(options: SigningOptions(allowMissingPreviousTransaction: true)).sign(
            psbt, with: provider)
        for input in ground.psbt.inputs {
            for (_, signature) in input.partialSignatures {
                let der = try ECDSASignature(der: signature.dropLast())
                #expect(der.compact[0] < 0x80, "R is low")
                #expect(der.isLowS)
            }
        }
    }

    @Test(
        "BIP174 failsSignerChecks are refused with the reason", arguments: try BIP174WorkflowSteps.failsSignerChecks()
    )
    func failsSignerChecks(_ vector: BIP174WorkflowSteps.Case) throws {
        let psbt = try PSBT(serialized: TestHex.bytes(vector.hex))
        // The keys of the BIP174 workflow (the vectors' master key) sign whatever they can; the check comes first.
        let master = try ExtendedPrivateKey(base58: BIP174WorkflowSteps.masterTprv())
        do {
            _ = try PSBTSigner().sign(psbt, with: SeedKeyProvider(master: master))
            Issue.record("signed a PSBT that fails the signer checks: \(vector.description)")
        } catch {
            guard case .signerCheckFailed(_, let reason) = error else {
                Issue.record("refused with \(error), not a signer check")
                return
            }
            #expect(!reason.isEmpty)
        }
    }

    @Test("strict options refuse a segwit v0 input without its previous transaction")
    func strictRefusesMissingPreviousTransaction() throws {
        let psbt = try PSBT(serialized: TestHex.bytes(BIP174WorkflowSteps.resultHex("updater_sighash_all")))
        #expect {
            _ = try PSBTSigner().sign(psbt, with: try Self.provider(BIP174WorkflowSteps.keys("signer_1")))
        } throws: { error in
            if case .signerCheckFailed(let input, _) = error as? PSBTError { return input == 1 }
            return false
        }
    }

    @Test("a key the PSBT names with a lying derivation is not used")
    func lyingDerivationIgnored() throws {
        let psbt = try PSBT(serialized: TestHex.bytes(BIP174WorkflowSteps.resultHex("updater_sighash_all")))
        // A seed other than the one the derivations name: its fingerprint differs, so nothing is signed.
        let other = try ExtendedPrivateKey(seed: SecretBytes(copying: [UInt8](repeating: 7, count: 32)), network: .test)
        let report = try PSBTSigner().sign(psbt, with: SeedKeyProvider(master: other))
        #expect(report.signedInputs.isEmpty)
        #expect(report.psbt.serialized() == psbt.serialized())
    }
}

/// The BIP174 workflow steps of Tests/Vectors/psbt/bip174_vectors.json.
enum BIP174WorkflowSteps {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let description: String
        let hex: String
        var testDescription: String { description }
    }

    static func root() throws -> [String: Any] {
        guard let root = try Vectors.anyJSON("psbt/bip174_vectors.json") as? [String: Any] else {
            throw Vectors.VectorsError.malformed(path: "bip174_vectors.json", detail: "not an object")
        }
        return root
    }

    static func step(_ name: String) throws -> [String: Any] {
        guard let workflow = try root()["workflow"] as? [String: Any], let step = workflow[name] as? [String: Any]
        else { throw Vectors.VectorsError.malformed(path: "bip174_vectors.json", detail: "no step \(name)") }
        return step
    }

    static func resultHex(_ name: String) throws -> String {
        guard let result = try step(name)["result"] as? [String: Any], let hex = result["hex"] as? String else {
            throw Vectors.VectorsError.malformed(path: "bip174_vectors.json", detail: "no result in \(name)")
        }
        return hex
    }

    static func keys(_ name: String) throws -> [String] {
        (try step(name)["keys"] as? [[String: Any]] ?? []).compactMap { $0["wif"] as? String }
    }

    static func masterTprv() throws -> String {
        guard let workflow = try root()["workflow"] as? [String: Any],
            let master = workflow["master_key"] as? [String: Any], let tprv = master["tprv"] as? String
        else { throw Vectors.VectorsError.malformed(path: "bip174_vectors.json", detail: "no master key") }
        return tprv
    }

    static func failsSignerChecks() throws -> [Case] {
        let data = try JSONSerialization.data(withJSONObject: try root()["fails_signer_checks"] ?? [])
        return try JSONDecoder().decode([Case].self, from: data)
    }
}
