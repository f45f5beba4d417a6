import AirgapTransport
import ArgumentParser
import Bitcoin
import CLISupport
import Foundation

extension AirlockSigner {
    /// `airlock-signer inspect IN`: decodes data and shows what it is; for now output descriptors.
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a descriptor (file or '-' for stdin) and show its scripts and addresses; needs no vault.",
            discussion: """
                Prints the normalised descriptor with its checksum and the scriptPubKeys and addresses at indexes
                --from ..< --from + --count (one per branch of a multipath <0;1> descriptor). Private keys are never
                printed.

                Examples:
                  airlock-signer inspect account.txt
                  echo 'wpkh([d34db33f/84h/1h/0h]tpub…/<0;1>/*)' | airlock-signer inspect - --json --count 20
                """)

        @Argument(help: "Input: a file, '-' for stdin, or PNG images / a directory of them holding QR codes.")
        var input: [String]
        @Flag(help: "Machine-readable JSON on stdout.") var json = false
        @Option(help: "First child index to show.") var from: UInt32 = 0
        @Option(help: "How many indexes to show.") var count: UInt32 = 3
        @Option(help: "Network for addresses: main, test, signet, regtest (default: from the keys' version bytes).")
        var network: String?

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
                let text: String
                switch read.payload {
                case .descriptor(let t), .text(let t): text = t.trimmingCharacters(in: .whitespacesAndNewlines)
                default: throw CLIError(.invalidInput, "inspect shows descriptors for now; got \(read.payload.kind.rawValue)")
                }
                let descriptor: Descriptor
                do {
                    descriptor = try Descriptor(string: text)
                } catch {
                    throw CLIError(.invalidInput, "invalid descriptor: \(error)")
                }
                let chosen = network.flatMap { Network(name: $0) } ?? descriptor.network ?? .main
                let report = try DescriptorReport(descriptor, network: chosen, from: from, count: count)
                if json {
                    try JSONOutput.printObject(report.json)
                } else {
                    print(report.text, terminator: "")
                }
            }
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
            branches.append(Branch(descriptor: single.description, indexes: indexes, scripts: scripts, addresses: addresses))
        }
        self.branches = branches
    }

    var json: [String: Any] {
        let first = branches.first
        return [
            "type": "descriptor",
            "descriptor": descriptor,
            "network": network.rawValue,
            "scripts": first?.scripts ?? [],
            "addresses": first?.addresses.map { $0 ?? NSNull() as Any } ?? [],
            "paths": branches.map { branch in
                [
                    "descriptor": branch.descriptor,
                    "scripts": branch.scripts,
                    "addresses": branch.addresses.map { $0 ?? NSNull() as Any },
                ] as [String: Any]
            },
        ]
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
