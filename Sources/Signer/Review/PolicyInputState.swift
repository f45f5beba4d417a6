import Bitcoin
import BitcoinCrypto
import Descriptors
import Foundation

/// The review of one input of a registered miniscript policy wallet (docs/miniscript.md): which path the
/// transaction's nSequence / nLockTime allow, who has signed, and whether this vault's signature completes it.
public struct PolicyInputState: Sendable, Equatable {
    /// The input index.
    public let input: Int
    /// The registered wallet's name.
    public let wallet: String
    /// The policy in words (this vault's key named).
    public let policy: String
    /// Whether nSequence / nLockTime enable a timelocked (recovery) path.
    public let isRecovery: Bool
    /// The timelocks the transaction enables: `older(10)`, `after(800000)`.
    public let enabledTimelocks: [String]
    /// The transaction's nSequence for this input, and its nLockTime.
    public let sequence: UInt32
    public let lockTime: UInt32
    /// Master fingerprints (hex) of the keys that have signed, and of those that have not.
    public let signedBy: [String]
    public let notSigned: [String]
    /// With this vault's signature added: the signing keys' fingerprints and timelocks of the path it completes,
    /// or nil when the input is still incomplete after it.
    public let completedPath: (signers: [String], relative: UInt32?, absolute: UInt32?)?
    /// This vault's master fingerprint (hex), to name its key in the text.
    public let thisVault: String
    /// The registered cosigner names, fingerprint (hex) → name, shown as `Alice (1a2b3c4d)`.
    public let cosignerNames: [String: String]

    public static func == (a: Self, b: Self) -> Bool { a.text == b.text && a.input == b.input }

    /// The state of input `index` of `psbt`, spending `miniscript` (the wallet `wallet`) at `match`.
    static func make(
        psbt: PSBT, index: Int, match: MiniscriptInputMatch, wallet: String, words: String,
        provider: SeedKeyProvider, thisVault: Fingerprint, cosignerNames: [String: String] = [:]
    ) -> PolicyInputState? {
        guard let transaction = try? psbt.unsignedTransaction() else { return nil }
        let sequence = transaction.inputs[index].sequence.rawValue
        let lockTime = transaction.lockTime.rawValue
        let satisfier = MiniscriptSatisfier(signatures: [:], sequence: sequence, lockTime: lockTime)
        var enabled: [String] = []
        for lock in Self.timelocks(match.miniscript.node) {
            switch lock {
            case .older(let n) where satisfier.meetsRelative(n): enabled.append("older(\(n))")
            case .after(let n) where satisfier.meetsAbsolute(n): enabled.append("after(\(n))")
            default: break
            }
        }
        let signatures = psbt.partialSignatures(ofInput: index)
        var keys: [(bytes: [UInt8], name: String)] = []
        for key in match.miniscript.keys {
            guard let bytes = try? key.publicKey(at: match.index, path: match.path).key.compressed else { continue }
            keys.append((bytes, key.origin?.fingerprint.hexString ?? String(bytes.hexString.prefix(8))))
        }
        // This vault's keys among the policy's, as the PSBT's derivations name them and the seed derives them.
        var withOurs = signatures
        for derivation in psbt.inputs[index].bip32Derivations where derivation.origin.fingerprint == thisVault {
            let bytes = derivation.publicKey.compressed
            guard keys.contains(where: { $0.bytes == bytes }),
                let key =
                    (try? provider.privateKey(for: .bip32(publicKey: derivation.publicKey, origin: derivation.origin)))
                        ?? nil,
                key.publicKey == derivation.publicKey
            else { continue }
            withOurs[bytes] = withOurs[bytes] ?? [UInt8](repeating: 0, count: 72)
        }
        var completed: ([String], UInt32?, UInt32?)?
        let after = MiniscriptSatisfier(signatures: withOurs, sequence: sequence, lockTime: lockTime)
        if let satisfaction = (try? match.miniscript.satisfy(at: match.index, path: match.path, with: after)) ?? nil {
            let signing = Set(satisfaction.signingKeys)
            completed = (
                keys.filter { signing.contains($0.bytes) }.map(\.name), satisfaction.relativeTimelock,
                satisfaction.absoluteTimelock
            )
        }
        return PolicyInputState(
            input: index, wallet: wallet, policy: words, isRecovery: !enabled.isEmpty, enabledTimelocks: enabled,
            sequence: sequence, lockTime: lockTime,
            signedBy: keys.filter { signatures[$0.bytes] != nil }.map(\.name),
            notSigned: keys.filter { signatures[$0.bytes] == nil }.map(\.name), completedPath: completed,
            thisVault: thisVault.hexString, cosignerNames: cosignerNames)
    }

    /// Every `older()` / `after()` in the tree.
    static func timelocks(_ node: MiniscriptNode) -> [MiniscriptNode] {
        switch node {
        case .older, .after: return [node]
        default: return node.children.flatMap(timelocks)
        }
    }

    /// One line for the review.
    ///
    /// `input 0 ('family'): RECOVERY PATH: nSequence 10, nLockTime 150 enable older(10); signed by nobody yet; with
    /// this vault's signature: complete: this vault (0ddba11a) after 10 blocks`.
    public var text: String {
        func name(_ fingerprint: String) -> String {
            if fingerprint == thisVault { return "this vault (\(fingerprint))" }
            return cosignerNames[fingerprint].map { "\($0) (\(fingerprint))" } ?? fingerprint
        }
        var line = "input \(input) ('\(wallet)'): "
        if isRecovery {
            line +=
                "RECOVERY PATH: nSequence \(sequence), nLockTime \(lockTime) enable "
                + enabledTimelocks.joined(separator: ", ")
        } else {
            line += "primary path (nSequence \(sequence), nLockTime \(lockTime) enable no timelock of the policy)"
        }
        line += "; signed by " + (signedBy.isEmpty ? "nobody yet" : signedBy.map(name).joined(separator: ", "))
        if let completedPath {
            var when: [String] = []
            if let relative = completedPath.relative { when.append(Self.relativeWords(relative)) }
            if let absolute = completedPath.absolute { when.append(Self.absoluteWords(absolute)) }
            line +=
                "; with this vault's signature: complete: " + completedPath.signers.map(name).joined(separator: ", ")
                + " " + (when.isEmpty ? "with no timelock" : when.joined(separator: " and "))
        } else {
            line += "; with this vault's signature: still incomplete (more cosigners must sign)"
        }
        return line
    }

    /// `after 10 blocks`, or `after 5120 seconds` for a time-based `older()`.
    static func relativeWords(_ value: UInt32) -> String {
        value & (1 << 22) != 0 ? "after \((value & 0xFFFF) * 512) seconds" : "after \(value & 0xFFFF) blocks"
    }

    /// `from block 800000`, or `from <UTC date>` for a time-based `after()`.
    static func absoluteWords(_ value: UInt32) -> String {
        guard value >= LockTime.threshold else { return "from block \(value)" }
        let formatter = ISO8601DateFormatter()
        return "from \(formatter.string(from: Date(timeIntervalSince1970: TimeInterval(value))))"
    }
}
