import Bitcoin
import BitcoinCrypto

extension BIP322 {
    /// The single-key address kinds a BIP322 signature can be made for from one private key.
    public enum KeyScript: String, Sendable, CaseIterable {
        /// P2WPKH (simple or full).
        case p2wpkh
        /// P2TR key path, BIP86 (simple or full).
        case p2tr
        /// P2SH-P2WPKH (full only: the scriptSig carries the redeem script).
        case p2shP2wpkh
        /// P2PKH (full only).
        case p2pkh

        /// The scriptPubKey of `key` for this kind (BIP86 tweak without a script tree for P2TR).
        public func scriptPubKey(for key: PublicKey) throws(KeyError) -> Script {
            switch self {
            case .p2wpkh: .p2wpkh(PubkeyHash(key))
            case .p2shP2wpkh: Script.p2wpkh(PubkeyHash(key)).p2shWrapped
            case .p2pkh: .p2pkh(PubkeyHash(key))
            case .p2tr: .p2tr(outputKey: try key.xOnly.key.taprootOutputKey(merkleRoot: nil).key)
            }
        }

        /// Whether the simple (witness-only) form can carry a signature for this kind.
        public var allowsSimple: Bool { self == .p2wpkh || self == .p2tr }
    }

    /// The encoding to write.
    public enum Format: String, Sendable, CaseIterable {
        /// `smp`: the witness stack (native segwit only).
        case simple
        /// `ful`: the whole signed `to_sign`.
        case full
    }

    /// Errors making a BIP322 signature.
    public enum SigningError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The simple form was asked for an address that is not native segwit.
        case simpleNotPossible(KeyScript)
        /// The key could not sign (a tweak out of range).
        case key(KeyError)
        /// The signature hash could not be computed.
        case sighash(SighashError)

        public var description: String {
            switch self {
            case .simpleNotPossible(let script):
                "the simple BIP322 form needs a native segwit address (p2wpkh or p2tr), not \(script.rawValue); use full"
            case .key(let error): "the key cannot sign: \(error)"
            case .sighash(let error): "signature hash: \(error)"
            }
        }
    }

    /// Signs `message` for the `script` address of `key`: ECDSA (low R, SIGHASH_ALL) or BIP340 Schnorr
    /// (SIGHASH_DEFAULT) over `to_sign` with version, lock time and sequence 0.
    public static func sign(
        message: some Collection<UInt8>, key: PrivateKey, script: KeyScript, format: Format
    ) throws(SigningError) -> MessageSignature {
        if format == .simple, !script.allowsSimple { throw .simpleNotPossible(script) }
        let challenge: Script
        do { challenge = try script.scriptPubKey(for: key.publicKey) } catch { throw .key(error) }
        let toSpend = toSpend(message: Array(message), challenge: challenge)
        var toSign = toSign(toSpend: toSpend)
        var cache = SighashCache(toSign, spentOutputs: [toSpend.outputs[0]])
        let publicKey = key.publicKey.compressed
        do {
            switch script {
            case .p2tr:
                let digest = try cache.taprootSignatureHash(inputIndex: 0, type: .default)
                let tweaked = try key.taprootTweaked(merkleRoot: nil)
                toSign.inputs[0].witness = Witness([try tweaked.signSchnorr(message: digest).bytes])
            case .p2wpkh, .p2shP2wpkh:
                let scriptCode = Script.p2pkh(PubkeyHash(key.publicKey))
                let digest = try cache.segwitV0SignatureHash(
                    inputIndex: 0, scriptCode: scriptCode, amount: .zero, type: .all)
                let signature = try key.signECDSA(digest: digest).der + [UInt8(SighashType.all.rawValue)]
                toSign.inputs[0].witness = Witness([signature, publicKey])
                if script == .p2shP2wpkh {
                    toSign.inputs[0].scriptSig = Script([.push(Script.p2wpkh(PubkeyHash(key.publicKey)).bytes)])
                }
            case .p2pkh:
                let digest = try cache.legacySignatureHash(inputIndex: 0, scriptCode: challenge, type: .all)
                let signature = try key.signECDSA(digest: digest).der + [UInt8(SighashType.all.rawValue)]
                toSign.inputs[0].scriptSig = Script([.push(signature), .push(publicKey)])
            }
        } catch let error as KeyError {
            throw .key(error)
        } catch let error as SighashError {
            throw .sighash(error)
        } catch {
            throw .key(.invalidSignature)
        }
        return format == .simple ? .simple(toSign.inputs[0].witness) : .full(toSign)
    }
}
