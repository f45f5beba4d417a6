/// The type of a payload, for `--json` output and for callers that expect one type.
public enum PayloadKind: String, Sendable, CaseIterable, Hashable {
    case psbt
    case transaction
    case descriptor
    case cryptoAccount = "crypto-account"
    case cryptoOutput = "crypto-output"
    case outputDescriptor = "output-descriptor"
    case accountDescriptor = "account-descriptor"
    case hdKey = "crypto-hdkey"
    case ethSignRequest = "eth-sign-request"
    case ethSignature = "eth-signature"
    case address
    case bip21
    case json
    case chanceMultisig = "chance-multisig"
    case text
    case bytes
}
