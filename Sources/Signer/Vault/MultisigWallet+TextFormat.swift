import Bitcoin

extension MultisigWallet {
    /// Reads the multisig wallet text that Coldcard exports and Sparrow, Nunchuk and others write.
    ///
    /// For example:
    ///
    /// ```
    /// # comment
    /// Name: My Wallet
    /// Policy: 2 of 3
    /// Derivation: m/48'/1'/0'/2'
    /// Format: P2WSH
    ///
    /// 0F056943: tpubD…
    /// ```
    ///
    /// A `Derivation:` line applies to the keys after it (it may be repeated between keys). `Format` is `P2WSH`,
    /// `P2SH-P2WSH` (or `P2WSH-P2SH`) or `P2SH`. Keys in SLIP-132 form (Vpub, Zpub, …) are accepted. The wallet
    /// becomes `wsh(sortedmulti(k,[xfp/path]xpub/<0;1>/*,…))` (or the `sh` forms).
    ///
    /// - Throws: `MultisigError.invalidTextFormat` naming the line, or the errors of `init(name:descriptor:)`.
    /// - SeeAlso: https://coldcard.com/docs/multisig/#configuration-text-file
    public init(coldcardText text: String, name overrideName: String? = nil) throws(MultisigError) {
        var name: String?
        var threshold: Int?
        var total: Int?
        var derivation: DerivationPath?
        var format = "P2WSH"
        var keys: [String] = []
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = offset + 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw .invalidTextFormat(line: number, reason: "expected 'Key: value'")
            }
            let label = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch label.lowercased() {
            case "name": name = value
            case "policy":
                let parts = value.lowercased().split(separator: " ").filter { $0 != "of" }
                guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), k >= 1, k <= n, n <= 15 else {
                    throw .invalidTextFormat(line: number, reason: "policy must read 'M of N' with 1 ≤ M ≤ N ≤ 15")
                }
                (threshold, total) = (k, n)
            case "derivation":
                do { derivation = try DerivationPath(string: value) } catch {
                    throw .invalidTextFormat(line: number, reason: "invalid derivation path '\(value)'")
                }
            case "format":
                let upper = value.uppercased()
                guard ["P2WSH", "P2SH-P2WSH", "P2WSH-P2SH", "P2SH"].contains(upper) else {
                    throw .invalidTextFormat(line: number, reason: "unsupported format '\(value)'")
                }
                format = upper
            default:
                guard label.count == 8, (try? Fingerprint(hex: label)) != nil else {
                    throw .invalidTextFormat(line: number, reason: "unknown field '\(label)'")
                }
                guard let derivation else {
                    throw .invalidTextFormat(line: number, reason: "a key before any 'Derivation:' line")
                }
                let xpub: ExtendedPublicKey
                do {
                    let parsed = try ExtendedPublicKey(base58: value)
                    xpub = try parsed.withVersion(ExtendedKeyVersion(network: parsed.version.network, isPrivate: false))
                } catch {
                    throw .invalidTextFormat(line: number, reason: "not an extended public key")
                }
                let origin = KeyOrigin(fingerprint: try fingerprint(label, line: number), path: derivation)
                keys.append("\(origin)\(xpub.base58String)/<0;1>/*")
            }
        }
        guard let threshold, let total else { throw .invalidTextFormat(line: 0, reason: "no 'Policy: M of N' line") }
        guard keys.count == total else {
            throw .invalidTextFormat(line: 0, reason: "policy names \(total) keys but \(keys.count) are given")
        }
        let multi = "sortedmulti(\(([String(threshold)] + keys).joined(separator: ",")))"
        let descriptor =
            switch format {
            case "P2SH": "sh(\(multi))"
            case "P2WSH": "wsh(\(multi))"
            default: "sh(wsh(\(multi)))"
            }
        try self.init(name: overrideName ?? name ?? "multisig", descriptor: descriptor)
    }
}

private func fingerprint(_ hex: String, line: Int) throws(MultisigError) -> Fingerprint {
    do { return try Fingerprint(hex: hex) } catch { throw .invalidTextFormat(line: line, reason: "bad fingerprint") }
}
