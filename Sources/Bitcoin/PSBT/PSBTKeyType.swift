/// The key types of BIP174, BIP370, BIP371, BIP373 and BIP375, by map.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0174.mediawiki#specification
public enum PSBTKeyType {
    /// Global map key types.
    public enum Global {
        public static let unsignedTx: UInt64 = 0x00
        public static let xpub: UInt64 = 0x01
        public static let txVersion: UInt64 = 0x02
        public static let fallbackLocktime: UInt64 = 0x03
        public static let inputCount: UInt64 = 0x04
        public static let outputCount: UInt64 = 0x05
        public static let txModifiable: UInt64 = 0x06
        /// BIP375 PSBT_GLOBAL_SP_ECDH_SHARE (key data: the 33-byte scan key).
        public static let spECDHShare: UInt64 = 0x07
        /// BIP375 PSBT_GLOBAL_SP_DLEQ (key data: the 33-byte scan key).
        public static let spDLEQ: UInt64 = 0x08
        public static let version: UInt64 = 0xFB
        public static let proprietary: UInt64 = 0xFC
    }

    /// Input map key types.
    public enum Input {
        public static let nonWitnessUTXO: UInt64 = 0x00
        public static let witnessUTXO: UInt64 = 0x01
        public static let partialSig: UInt64 = 0x02
        public static let sighashType: UInt64 = 0x03
        public static let redeemScript: UInt64 = 0x04
        public static let witnessScript: UInt64 = 0x05
        public static let bip32Derivation: UInt64 = 0x06
        public static let finalScriptSig: UInt64 = 0x07
        public static let finalScriptWitness: UInt64 = 0x08
        public static let ripemd160: UInt64 = 0x0A
        public static let sha256: UInt64 = 0x0B
        public static let hash160: UInt64 = 0x0C
        public static let hash256: UInt64 = 0x0D
        public static let previousTxid: UInt64 = 0x0E
        public static let outputIndex: UInt64 = 0x0F
        public static let sequence: UInt64 = 0x10
        public static let requiredTimeLocktime: UInt64 = 0x11
        public static let requiredHeightLocktime: UInt64 = 0x12
        public static let tapKeySig: UInt64 = 0x13
        public static let tapScriptSig: UInt64 = 0x14
        public static let tapLeafScript: UInt64 = 0x15
        public static let tapBIP32Derivation: UInt64 = 0x16
        public static let tapInternalKey: UInt64 = 0x17
        public static let tapMerkleRoot: UInt64 = 0x18
        public static let musig2ParticipantPubkeys: UInt64 = 0x1A
        public static let musig2PubNonce: UInt64 = 0x1B
        public static let musig2PartialSig: UInt64 = 0x1C
        /// BIP375 PSBT_IN_SP_ECDH_SHARE (key data: the 33-byte scan key).
        public static let spECDHShare: UInt64 = 0x1D
        /// BIP375 PSBT_IN_SP_DLEQ (key data: the 33-byte scan key).
        public static let spDLEQ: UInt64 = 0x1E
        public static let proprietary: UInt64 = 0xFC
    }

    /// Output map key types.
    public enum Output {
        public static let redeemScript: UInt64 = 0x00
        public static let witnessScript: UInt64 = 0x01
        public static let bip32Derivation: UInt64 = 0x02
        public static let amount: UInt64 = 0x03
        public static let script: UInt64 = 0x04
        public static let tapInternalKey: UInt64 = 0x05
        public static let tapTree: UInt64 = 0x06
        public static let tapBIP32Derivation: UInt64 = 0x07
        public static let musig2ParticipantPubkeys: UInt64 = 0x08
        /// BIP375 PSBT_OUT_SP_V0_INFO: the 33-byte scan key and 33-byte spend key of a silent-payment address.
        public static let spV0Info: UInt64 = 0x09
        /// BIP375 PSBT_OUT_SP_V0_LABEL: the 32-bit little-endian label of a silent-payment change output.
        public static let spV0Label: UInt64 = 0x0A
        public static let proprietary: UInt64 = 0xFC
    }
}
