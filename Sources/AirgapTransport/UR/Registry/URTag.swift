/// CBOR tags of the UR registry, in the original (BCR-2020-006) and the 2023 (`40300`-range) numbering.
///
/// - SeeAlso: https://github.com/BlockchainCommons/Research/blob/master/papers/bcr-2020-006-urtypes.md
package enum URTag {
    package static let uuid: UInt64 = 37
    package static let hdKey: UInt64 = 303
    package static let keypath: UInt64 = 304
    package static let coinInfo: UInt64 = 305
    package static let ecKey: UInt64 = 306
    package static let cryptoOutput: UInt64 = 308
    package static let hdKeyV2: UInt64 = 40303
    package static let keypathV2: UInt64 = 40304
    package static let coinInfoV2: UInt64 = 40305
    package static let ecKeyV2: UInt64 = 40306
    package static let outputDescriptor: UInt64 = 40308
    // Script expressions (BCR-2020-010).
    package static let sh: UInt64 = 400
    package static let wsh: UInt64 = 401
    package static let pk: UInt64 = 402
    package static let pkh: UInt64 = 403
    package static let wpkh: UInt64 = 404
    package static let combo: UInt64 = 405
    package static let multi: UInt64 = 406
    package static let sortedMulti: UInt64 = 407
    package static let tr: UInt64 = 409
    package static let cosigner: UInt64 = 410
    // EIP-4527 (the whole UR is this map; the tags name the types in the registry).
    package static let ethSignRequest: UInt64 = 401
    package static let ethSignature: UInt64 = 402
}
