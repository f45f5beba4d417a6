/// Which tag numbering an encoder writes: `v1` for `crypto-output`/`crypto-account`, `v2` for the 2023 types.
public enum URTagSet: Sendable {
    /// 303 hdkey, 304 keypath, 305 coininfo, 306 eckey (BCR-2020-007/008/010/015).
    case v1
    /// 40303 hdkey, 40304 keypath, 40305 coininfo, 40306 eckey (BCR-2023-010/019).
    case v2

    var hdKey: UInt64 { self == .v1 ? URTag.hdKey : URTag.hdKeyV2 }
    var keypath: UInt64 { self == .v1 ? URTag.keypath : URTag.keypathV2 }
    var coinInfo: UInt64 { self == .v1 ? URTag.coinInfo : URTag.coinInfoV2 }
    var ecKey: UInt64 { self == .v1 ? URTag.ecKey : URTag.ecKeyV2 }
}
