import BitcoinCrypto

/// The field-level checks of BIP375's silent-payment fields, run by the parser: PSBTv2 only, key and value sizes,
/// points that parse, and a label only beside the address it labels. The rules that span maps (share coverage,
/// DLEQ proofs, derived scripts) are the SilentPayments module's.
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0375.mediawiki
extension PSBTParser {
    private struct FieldRule {
        let name: String
        let keyDataCount: Int
        let valueCount: Int
        let keyIsPoint: Bool
        let valueIsPoint: Bool
    }

    private static func rules(for location: PSBTLocation) -> [UInt64: FieldRule] {
        switch location {
        case .global:
            [
                PSBTKeyType.Global.spECDHShare: FieldRule(
                    name: "PSBT_GLOBAL_SP_ECDH_SHARE", keyDataCount: 33, valueCount: 33, keyIsPoint: true,
                    valueIsPoint: true),
                PSBTKeyType.Global.spDLEQ: FieldRule(
                    name: "PSBT_GLOBAL_SP_DLEQ", keyDataCount: 33, valueCount: 64, keyIsPoint: true,
                    valueIsPoint: false),
            ]
        case .input:
            [
                PSBTKeyType.Input.spECDHShare: FieldRule(
                    name: "PSBT_IN_SP_ECDH_SHARE", keyDataCount: 33, valueCount: 33, keyIsPoint: true,
                    valueIsPoint: true),
                PSBTKeyType.Input.spDLEQ: FieldRule(
                    name: "PSBT_IN_SP_DLEQ", keyDataCount: 33, valueCount: 64, keyIsPoint: true, valueIsPoint: false),
            ]
        case .output:
            [
                PSBTKeyType.Output.spV0Info: FieldRule(
                    name: "PSBT_OUT_SP_V0_INFO", keyDataCount: 0, valueCount: 66, keyIsPoint: false,
                    valueIsPoint: false),
                PSBTKeyType.Output.spV0Label: FieldRule(
                    name: "PSBT_OUT_SP_V0_LABEL", keyDataCount: 0, valueCount: 4, keyIsPoint: false,
                    valueIsPoint: false),
            ]
        }
    }

    /// Checks the BIP375 entries of `map`.
    ///
    /// - Throws: `PSBTError` naming the field: not allowed in v0, a wrong key or value size, a point that does not
    ///   parse, or a label without the silent-payment address.
    static func checkSilentPaymentFields(_ map: PSBTMap, location: PSBTLocation, version: UInt32) throws(PSBTError) {
        let rules = rules(for: location)
        for entry in map.entries {
            guard let rule = rules[entry.keyType] else { continue }
            guard version >= 2 else { throw .fieldNotAllowed(field: rule.name, version: version, location: location) }
            guard entry.keyData.count == rule.keyDataCount else {
                throw .invalidKeySize(
                    field: rule.name, location: location, expected: String(rule.keyDataCount + 1),
                    actual: entry.key.count)
            }
            guard entry.value.count == rule.valueCount else {
                throw .invalidValue(
                    field: rule.name, location: location,
                    reason: "the value is \(entry.value.count) bytes, not \(rule.valueCount)")
            }
            if rule.keyIsPoint, (try? PublicKey(serialized: entry.keyData)) == nil {
                throw .invalidPublicKey(field: rule.name, location: location)
            }
            if rule.valueIsPoint, (try? PublicKey(serialized: entry.value)) == nil {
                throw .invalidPublicKey(field: rule.name, location: location)
            }
            if entry.keyType == PSBTKeyType.Output.spV0Info, case .output = location {
                guard (try? PublicKey(serialized: entry.value[0..<33])) != nil,
                    (try? PublicKey(serialized: entry.value[33..<66])) != nil
                else { throw .invalidPublicKey(field: rule.name, location: location) }
            }
        }
        if case .output = location, map.contains(PSBTKeyType.Output.spV0Label),
            !map.contains(PSBTKeyType.Output.spV0Info)
        {
            throw .invalidValue(
                field: "PSBT_OUT_SP_V0_LABEL", location: location,
                reason: "a silent-payment label needs the silent-payment address (PSBT_OUT_SP_V0_INFO) beside it")
        }
    }
}
