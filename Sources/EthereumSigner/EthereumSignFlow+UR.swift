public import AirgapTransport
public import Ethereum

extension EthereumSignFlow {
    /// The request an EIP-4527 `eth-sign-request` carries, in the flow's terms (its path steps and data type mapped,
    /// then checked by ``request(signData:dataType:chainID:path:address:origin:)``).
    public static func request(_ ur: UREthSignRequest) throws(EthereumRequestError) -> EthereumSigningSession.Request {
        try request(
            signData: ur.signData, dataType: dataType(ur.dataType), chainID: ur.chainID,
            path: ur.derivationPath.components.map(step), address: ur.address, origin: ur.origin)
    }

    /// The `ur:eth-signature` answer to `request` carrying `signature`, with its UR text.
    public static func answer(
        _ signature: EthereumSignature, to request: UREthSignRequest
    ) throws -> (item: UREthSignature, ur: String) {
        let item = UREthSignature(requestID: request.requestID, signature: signature.bytes, origin: "airlock-signer")
        return (item, try URRegistryItem.ethSignature(item).ur().string)
    }

    static func step(_ component: URKeypath.Component) -> PathStep {
        if case .index(let index, let hardened) = component { return .index(index, hardened: hardened) }
        return .notAnIndex
    }

    static func dataType(_ type: UREthSignRequest.DataType) -> EthereumSigningSession.Request.DataType {
        switch type {
        case .legacyTransaction: .legacyTransaction
        case .typedData: .typedData
        case .personalMessage: .personalMessage
        case .typedTransaction: .typedTransaction
        }
    }
}
