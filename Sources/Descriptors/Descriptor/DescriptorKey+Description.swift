import Bitcoin
import BitcoinCrypto

extension DescriptorKey {
    /// The key expression as text, with `h` markers and standard xpub/tpub versions.
    ///
    /// Private keys are printed only
    /// with `includingPrivateKeys`; otherwise an xprv with hardened fixed steps is replaced by the xpub of the last
    /// hardened step, with those steps moved into the origin, so that the public form can still derive.
    /// `xOnly` prints hex keys as 32-byte x-only keys (inside `tr()`).
    ///
    /// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0380.mediawiki#key-expressions
    public func string(includingPrivateKeys: Bool, xOnly: Bool = false) -> String {
        switch material {
        case .publicKey(let key, let compressed):
            let bytes = xOnly ? key.xOnly.key.bytes : (compressed ? key.compressed : key.uncompressed)
            return originText(origin) + bytes.hexString
        case .xOnly(let key):
            return originText(origin) + key.bytes.hexString
        case .wif(let wif):
            if includingPrivateKeys { return originText(origin) + wif.base58String }
            let bytes =
                xOnly
                ? wif.publicKey.xOnly.key.bytes
                : (wif.isCompressed ? wif.publicKey.compressed : wif.publicKey.uncompressed)
            return originText(origin) + bytes.hexString
        case .extended(.privateKey(let key)):
            if includingPrivateKeys { return originText(origin) + key.standardBase58String + stepsText(steps) }
            return publicForm(of: key)
        case .extended(.publicKey(let key)):
            return originText(origin) + key.standardBase58String + stepsText(steps)
        case .musig(let participants):
            // Participants print as written keys (33-byte hex, never x-only), in their given order (BIP390).
            let inner = participants.map { $0.string(includingPrivateKeys: includingPrivateKeys, xOnly: false) }
            return "musig(" + inner.joined(separator: ",") + ")" + stepsText(steps)
        }
    }

    /// The public form of an xprv expression: hardened steps before any multipath step are derived here.
    private func publicForm(of key: ExtendedPrivateKey) -> String {
        let lastHardened = steps.lastIndex { step in
            switch step {
            case .child(let number): number.isHardened
            case .multipath(let numbers): numbers.contains { $0.isHardened }
            }
        }
        let firstMultipath = steps.firstIndex { if case .multipath = $0 { true } else { false } }
        guard let lastHardened, firstMultipath.map({ $0 > lastHardened }) ?? true else {
            return originText(origin) + key.extendedPublicKey.standardBase58String + stepsText(steps)
        }
        let moved = Self.fixedPath(Array(steps[...lastHardened]), branch: 0)
        guard let derived = try? key.derive(DerivationPath(moved)) else {
            return originText(origin) + key.extendedPublicKey.standardBase58String + stepsText(steps)
        }
        let base = origin ?? KeyOrigin(fingerprint: key.fingerprint, path: .master)
        let newOrigin = (try? DerivationPath(base.path.components + moved)).map {
            KeyOrigin(fingerprint: base.fingerprint, path: $0)
        }
        return originText(newOrigin) + derived.extendedPublicKey.standardBase58String
            + stepsText(Array(steps[(lastHardened + 1)...]))
    }

    private func originText(_ origin: KeyOrigin?) -> String { origin?.description ?? "" }

    private func stepsText(_ steps: [Step]) -> String {
        var out = ""
        for step in steps {
            switch step {
            case .child(let number): out += "/\(number)"
            case .multipath(let numbers): out += "/<" + numbers.map(\.description).joined(separator: ";") + ">"
            }
        }
        switch wildcard {
        case .none: break
        case .normal: out += "/*"
        case .hardened: out += "/*h"
        }
        return out
    }
}
