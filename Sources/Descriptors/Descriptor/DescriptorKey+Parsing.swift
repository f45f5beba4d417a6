import Bitcoin
import BitcoinCrypto

extension DescriptorKey {
    /// Where a key appears, which decides the key forms allowed.
    enum Context: Sendable {
        /// Top level, `sh()`: compressed or uncompressed keys.
        case legacy
        /// `wpkh()`, `wsh()`: compressed keys only.
        case segwitV0
        /// `tr()`: x-only or compressed keys.
        case taproot
    }

    /// Parses one key expression that starts at `position` in the descriptor.
    ///
    /// - Throws: `DescriptorError.invalidKeyOrigin`, `.invalidKey`, `.invalidDerivationStep`,
    ///   `.derivationOnNonExtendedKey`, `.multipleMultipathSteps`, `.uncompressedKey` or `.xOnlyKeyOutsideTaproot`.
    static func parse(_ text: Substring, position: Int, context: Context) throws(DescriptorError) -> DescriptorKey {
        var rest = text
        var offset = position
        var origin: KeyOrigin?
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else {
                throw .invalidKeyOrigin(reason: "missing ]", position: position)
            }
            let inner = rest[rest.index(after: rest.startIndex)..<close]
            origin = try parseOrigin(inner, position: position + 1)
            offset += inner.count + 2
            rest = rest[rest.index(after: close)...]
        }
        if let bracket = rest.firstIndex(where: { $0 == "[" || $0 == "]" }) {
            let at = offset + rest.distance(from: rest.startIndex, to: bracket)
            let reason = rest[bracket] == "[" ? "more than one key origin" : "] without a key origin start"
            throw .invalidKeyOrigin(reason: reason, position: at)
        }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
        let keyText = parts[0]
        guard !keyText.isEmpty else { throw .invalidKey(reason: "missing key", position: offset) }
        let material = try parseMaterial(keyText, position: offset, context: context)
        if parts.count > 1 {
            guard case .extended = material else { throw .derivationOnNonExtendedKey(position: offset + keyText.count) }
        }
        let (steps, wildcard) = try parseSteps(parts.dropFirst(), position: offset + keyText.count + 1)
        return DescriptorKey(origin: origin, material: material, steps: steps, wildcard: wildcard)
    }

    /// The derivation steps after a key: `parts` are the texts between slashes, the first starting at `position`.
    ///
    /// - Throws: `DescriptorError.invalidDerivationStep` (also for a `*` before the end or over 255 steps) or
    ///   `.multipleMultipathSteps`.
    static func parseSteps(_ parts: ArraySlice<Substring>, position: Int) throws(DescriptorError)
        -> (steps: [Step], wildcard: Wildcard)
    {
        var steps: [Step] = []
        var wildcard = Wildcard.none
        var stepOffset = position
        for (n, part) in parts.enumerated() {
            let isLast = n == parts.count - 1
            if part == "*" || part == "*h" || part == "*'" {
                guard isLast else { throw .invalidDerivationStep(String(part), position: stepOffset) }
                wildcard = part == "*" ? .normal : .hardened
            } else if part.first == "<" {
                guard part.last == ">", part.count > 2 else {
                    throw .invalidDerivationStep(String(part), position: stepOffset)
                }
                guard !steps.contains(where: { if case .multipath = $0 { true } else { false } }) else {
                    throw .multipleMultipathSteps(position: stepOffset)
                }
                let items = part.dropFirst().dropLast().split(separator: ";", omittingEmptySubsequences: false)
                guard items.count >= 2 else { throw .invalidDerivationStep(String(part), position: stepOffset) }
                var numbers: [ChildNumber] = []
                for item in items {
                    numbers.append(try childNumber(item, position: stepOffset))
                }
                steps.append(.multipath(numbers))
            } else {
                steps.append(.child(try childNumber(part, position: stepOffset)))
            }
            stepOffset += part.count + 1
        }
        guard steps.count <= DerivationPath.maxDepth else {
            throw .invalidDerivationStep("more than 255 steps", position: position)
        }
        return (steps, wildcard)
    }

    /// One step: decimal index below 2^31 with an optional `h` or `'` (BIP380 does not allow `H`).
    private static func childNumber(_ text: Substring, position: Int) throws(DescriptorError) -> ChildNumber {
        do {
            return try ChildNumber(pathComponent: String(text), position: position, hardenedMarkers: "h'")
        } catch {
            throw .invalidDerivationStep(String(text), position: position)
        }
    }

    private static func parseOrigin(_ text: Substring, position: Int) throws(DescriptorError) -> KeyOrigin {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts[0].count == 8, let fingerprint = try? Fingerprint(hex: String(parts[0])) else {
            throw .invalidKeyOrigin(reason: "fingerprint must be 8 hex digits", position: position)
        }
        var numbers: [ChildNumber] = []
        var offset = position + 9
        for part in parts.dropFirst() {
            do {
                numbers.append(try ChildNumber(pathComponent: String(part), position: offset, hardenedMarkers: "h'"))
            } catch {
                throw .invalidKeyOrigin(reason: "invalid path step '\(part)'", position: offset)
            }
            offset += part.count + 1
        }
        guard let path = try? DerivationPath(numbers) else {
            throw .invalidKeyOrigin(reason: "path deeper than 255", position: position)
        }
        return KeyOrigin(fingerprint: fingerprint, path: path)
    }

    private static func parseMaterial(_ text: Substring, position: Int, context: Context) throws(DescriptorError)
        -> Material
    {
        let string = String(text)
        if [64, 66, 130].contains(string.utf8.count), let bytes = try? [UInt8](hex: string) {
            if bytes.count == 32 {
                guard context == .taproot else { throw .xOnlyKeyOutsideTaproot(position: position) }
                guard let key = try? XOnlyPublicKey(serialized: bytes) else {
                    throw .invalidKey(reason: "x-only key is not on the curve", position: position)
                }
                return .xOnly(key)
            }
            guard let key = try? PublicKey(serialized: bytes) else {
                throw .invalidKey(reason: "public key is not on the curve", position: position)
            }
            let compressed = bytes.count == 33
            guard compressed || context == .legacy else { throw .uncompressedKey(position: position) }
            return .publicKey(key, compressed: compressed)
        }
        let payloadCount: Int
        do {
            var payload = try Base58.decodeCheck(string)
            payloadCount = payload.count
            SecretBytes.wipe(&payload)
        } catch {
            throw .invalidKey(reason: "not a hex key, WIF or extended key", position: position)
        }
        if payloadCount == 78 {
            do {
                return .extended(try ExtendedKey(base58: string))
            } catch {
                throw .invalidKey(reason: "invalid extended key: \(error)", position: position)
            }
        }
        let wif: WIF
        do {
            wif = try WIF(base58: string)
        } catch {
            throw .invalidKey(reason: "invalid WIF key: \(error)", position: position)
        }
        guard wif.isCompressed || context == .legacy else { throw .uncompressedKey(position: position) }
        return .wif(wif)
    }
}
