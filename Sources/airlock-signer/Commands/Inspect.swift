import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Descriptors
import Foundation

extension AirlockSigner {
    /// `airlock-signer inspect IN`: decodes a PSBT, a descriptor, a transaction or an address and shows it.
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Decode a PSBT, descriptor, transaction, address or Ethereum request (file, '-', or QR PNGs); no vault.",
            discussion: """
                A PSBT shows its transaction id, inputs, outputs with addresses and amounts, the fee and fee rate, \
                signatures and warnings. A descriptor shows its normalised form with checksum and the scriptPubKeys \
                and addresses at indexes --from ..< --from + --count (one list per branch of a multipath <0;1> \
                descriptor). An Ethereum ur:eth-sign-request shows its request id, chain id, path and address and \
                what it signs (recipient, value, nonce, fees, an ERC-20 call; a message; typed data), a \
                ur:eth-signature its request id and r, s, v; --json "type" is "eth-sign-request" or "eth-signature". \
                Private keys are never printed. Invalid data exits 2 with the fault named.

                Examples:
                  airlock-signer inspect unsigned.psbt
                  airlock-signer inspect frames/ --json
                  airlock-signer inspect account.txt
                  echo 'wpkh([d34db33f/84h/1h/0h]tpub…/<0;1>/*)' | airlock-signer inspect - --json --count 20
                """)

        /// What to read the input as.
        enum Interpretation: String, ExpressibleByArgument, CaseIterable {
            case auto, psbt, descriptor, transaction
        }

        @Argument(help: "Input: a file, '-' for stdin, or PNG images / a directory of them holding QR codes.")
        var input: [String]
        @Flag(help: "Machine-readable JSON on stdout.") var json = false
        @Option(help: "First child index to show.") var from: UInt32 = 0
        @Option(help: "How many indexes to show.") var count: UInt32 = 3
        @Option(help: "Network for addresses: main, test, signet, regtest (default: from the keys' version bytes).")
        var network: String?
        @Option(name: .customLong("as"), help: "Read the input as: auto, psbt, descriptor, transaction.")
        var interpretation: Interpretation = .auto

        func validate() throws {
            if let network, Network(name: network) == nil {
                throw ValidationError("unknown network '\(network)' (main, test, signet, regtest)")
            }
            guard UInt64(from) + UInt64(count) <= UInt64(1) << 31 else {
                throw ValidationError("--from + --count must stay below 2^31")
            }
        }

        func run() async throws {
            try await ErrorReporting.run {
                let read = try InputReader.read(input)
                let chosenNetwork = network.flatMap { Network(name: $0) }
                if let psbt = try psbtPayload(read.payload) {
                    let report = try PSBTReport(psbt, network: chosenNetwork)
                    return try emit(report.text, InspectJSON.psbt(report.json))
                }
                if case .ethSignRequest(let request) = read.payload {
                    let report = try EthPayloadReport(request: request)
                    return try emit(report.text, report.json)
                }
                if case .ethSignature(let signature) = read.payload {
                    let report = EthPayloadReport(signature: signature)
                    return try emit(report.text, report.json)
                }
                if case .transaction(let bytes) = read.payload, interpretation != .descriptor {
                    return try showTransaction(bytes, network: chosenNetwork ?? .main)
                }
                if case .address(let text) = read.payload, interpretation == .auto { return try showAddress(text) }
                try showDescriptor(read.payload)
            }
        }

        /// Prints `text` (as it is), or `document` under --json.
        private func emit(_ text: String, _ document: some Encodable) throws {
            if json { try JSONOutput.print(document) } else { print(text, terminator: "") }
        }

        /// A descriptor: its addresses from --from, --count of them.
        private func showDescriptor(_ payload: Payload) throws {
            let text: String
            switch payload {
            case .descriptor(let t), .text(let t): text = t.trimmingCharacters(in: .whitespacesAndNewlines)
            default: throw CLIError(.invalidInput, "inspect cannot show a \(payload.kind.rawValue) payload")
            }
            let descriptor: Descriptor
            do { descriptor = try Descriptor(string: text) } catch {
                throw CLIError(.invalidInput, "invalid descriptor: \(error)")
            }
            let chosen = network.flatMap { Network(name: $0) } ?? descriptor.network ?? .main
            let report = try DescriptorReport(descriptor, network: chosen, from: from, count: count)
            try emit(report.text, InspectJSON.descriptor(report.json))
        }
    }
}

extension AirlockSigner.Inspect {
    /// The PSBT in `payload`, when it is one (or `--as psbt` says it must be); nil for other payloads.
    func psbtPayload(_ payload: Payload) throws -> PSBT? {
        let bytes: [UInt8]
        switch payload {
        case .psbt(let b): bytes = b
        case .bytes(let b) where interpretation == .psbt: bytes = b
        case .text(let t) where interpretation == .psbt, .descriptor(let t) where interpretation == .psbt:
            bytes = Array(t.utf8)
        case .transaction where interpretation == .psbt:
            throw CLIError(.invalidInput, "invalid PSBT: Invalid PSBT magic bytes (this is a network transaction)")
        default:
            if interpretation == .psbt {
                throw CLIError(.invalidInput, "invalid PSBT: the input is a \(payload.kind.rawValue), not a PSBT")
            }
            return nil
        }
        do {
            return try PSBT(anyEncoding: bytes)
        } catch {
            throw CLIError(.invalidInput, "invalid PSBT: \(error)")
        }
    }

    func showTransaction(_ bytes: [UInt8], network: Network) throws {
        let transaction: Transaction
        do { transaction = try Transaction(serialized: bytes) } catch {
            throw CLIError(.invalidInput, "invalid transaction: \(error)")
        }
        let outputs = transaction.outputs.enumerated().map { index, output in
            InspectJSON.Transaction.Output(
                index: index, amount: output.value.sats, script: output.scriptPubKey.hexString,
                address: (try? Address(scriptPubKey: output.scriptPubKey, network: network))?.description)
        }
        if json {
            try JSONOutput.print(
                InspectJSON.transaction(
                    .init(
                        txid: transaction.txid.hexString, vsize: transaction.vsize,
                        inputs: transaction.inputs.map { "\($0.previousOutput)" }, outputs: outputs)))
        } else {
            print("transaction \(transaction.txid) (\(transaction.vsize) vB)")
            for input in transaction.inputs { print("  in:  \(input.previousOutput)") }
            for output in outputs { print("  out: \(output.amount) sat to \(output.address ?? output.script)") }
        }
    }

    func showAddress(_ text: String) throws {
        let decoded: (payload: Address.Payload, networks: [Network])
        do { decoded = try Address.decode(text) } catch { throw CLIError(.invalidInput, "invalid address: \(error)") }
        let script = Address(decoded.payload, network: decoded.networks[0]).scriptPubKey
        if json {
            try JSONOutput.print(
                InspectJSON.address(
                    .init(address: text, networks: decoded.networks.map(\.rawValue), scripts: [script.hexString])))
        } else {
            print(
                "address \(text)\n  networks: \(decoded.networks.map(\.rawValue).joined(separator: ", "))\n  script: \(script.hexString)"
            )
        }
    }
}

/// What `inspect` shows of a descriptor: per branch, the single-path descriptor, scripts and addresses.
struct DescriptorReport {
    struct Branch {
        let descriptor: String
        let indexes: [UInt32]
        let scripts: [String]
        let addresses: [String?]
    }

    let descriptor: String
    let network: Network
    let branches: [Branch]

    init(_ descriptor: Descriptor, network: Network, from: UInt32, count: UInt32) throws {
        self.descriptor = descriptor.description
        self.network = network
        let indexes: [UInt32] = descriptor.isRanged ? Array(from..<from + count) : [0]
        let singles = descriptor.singlePathDescriptors()
        var branches: [Branch] = []
        for (path, single) in singles.enumerated() {
            var scripts: [String] = []
            var addresses: [String?] = []
            for index in indexes {
                do {
                    for script in try descriptor.scriptPubKeys(at: index, path: path) {
                        scripts.append(script.hexString)
                        addresses.append((try? Address(scriptPubKey: script, network: network))?.description)
                    }
                } catch {
                    throw CLIError(.invalidInput, "cannot derive index \(index): \(error)")
                }
            }
            branches.append(
                Branch(descriptor: single.description, indexes: indexes, scripts: scripts, addresses: addresses))
        }
        self.branches = branches
    }

    var json: InspectJSON.Descriptor {
        InspectJSON.Descriptor(
            descriptor: descriptor, network: network.rawValue, scripts: branches.first?.scripts ?? [],
            addresses: branches.first?.addresses ?? [],
            paths: branches.map { .init(descriptor: $0.descriptor, scripts: $0.scripts, addresses: $0.addresses) })
    }

    var text: String {
        var out = "descriptor: \(descriptor)\nnetwork: \(network.rawValue)\n"
        for (path, branch) in branches.enumerated() {
            if branches.count > 1 { out += "path \(path): \(branch.descriptor)\n" }
            let perIndex = branch.indexes.isEmpty ? 0 : branch.scripts.count / branch.indexes.count
            for (n, script) in branch.scripts.enumerated() {
                let index = branch.indexes[perIndex == 0 ? 0 : n / perIndex]
                out += "  \(index): \(branch.addresses[n] ?? "(no address)")  \(script)\n"
            }
        }
        return out
    }
}
