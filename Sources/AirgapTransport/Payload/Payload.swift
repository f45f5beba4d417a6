/// A complete payload read from QR codes or a file, with its detected type.
public enum Payload: Equatable, Sendable {
    /// A PSBT, binary (starts with `psbt\xff`); not parsed here.
    case psbt([UInt8])
    /// A raw transaction (from hex, base43, BBQr type T), not parsed here.
    case transaction([UInt8])
    /// Output descriptor text (one or more lines).
    case descriptor(String)
    /// A `crypto-account` UR.
    case cryptoAccount(URCryptoAccount)
    /// A `crypto-output` UR.
    case cryptoOutput(URCryptoOutput)
    /// An `output-descriptor` UR.
    case outputDescriptor(UROutputDescriptor)
    /// An `account-descriptor` UR.
    case accountDescriptor(URAccountDescriptor)
    /// A `crypto-hdkey` UR (an Ethereum account key from `export --chain eth`, EIP-4527).
    case hdKey(URHDKey)
    /// An EIP-4527 `eth-sign-request` UR.
    case ethSignRequest(UREthSignRequest)
    /// An EIP-4527 `eth-signature` UR.
    case ethSignature(UREthSignature)
    /// A plain address (checked syntactically only; see `AddressCandidate`).
    case address(String)
    /// A BIP21 URI.
    case bip21(BIP21URI)
    /// JSON text (BBQr type J, or text starting with `{`), for example a wallet export.
    case json(String)
    /// A Chance wallet `multisig:` text (docs/architecture.md section 3), detected by its prefix; parsed by
    /// `Chance.ChanceMultisig(string:)`.
    case chanceMultisig(String)
    /// Any other text.
    case text(String)
    /// Any other bytes (`ur:bytes`, BBQr types C, B, X, non-UTF-8 QR bytes).
    case bytes([UInt8])

    /// The payload's type.
    public var kind: PayloadKind {
        switch self {
        case .psbt: .psbt
        case .transaction: .transaction
        case .descriptor: .descriptor
        case .cryptoAccount: .cryptoAccount
        case .cryptoOutput: .cryptoOutput
        case .outputDescriptor: .outputDescriptor
        case .accountDescriptor: .accountDescriptor
        case .hdKey: .hdKey
        case .ethSignRequest: .ethSignRequest
        case .ethSignature: .ethSignature
        case .address: .address
        case .bip21: .bip21
        case .json: .json
        case .chanceMultisig: .chanceMultisig
        case .text: .text
        case .bytes: .bytes
        }
    }
}
