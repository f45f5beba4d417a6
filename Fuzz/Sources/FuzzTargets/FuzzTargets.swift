// The one-input functions of every libFuzzer target (docs/architecture.md section 9). A target of the Airlock package itself, so
// that `swift test` (FuzzReplayTests) replays every committed corpus through them without a -sanitize=fuzzer build,
// and the executables of the Fuzz/ package hand them to libFuzzer.

/// The fuzz targets' entry points: each takes one input and must not crash, whatever the bytes (thrown errors are
/// expected; a `precondition` marks an invariant whose failure is a bug).
public enum FuzzTargets {
    /// Every target by the name of its executable and corpus directory (`Fuzz/corpus/<name>`).
    public static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "FuzzPSBT": psbt, "FuzzUR": ur, "FuzzBBQr": bbqr, "FuzzPNG": png,
        "FuzzElectrum": electrum, "FuzzEsplora": esplora, "FuzzCore": core,
        "FuzzRLP": rlp, "FuzzEIP4527": eip4527, "FuzzTypedData": typedData, "FuzzChance": chance,
        "FuzzJSON": json, "FuzzKeystore": keystore, "FuzzPaymentURI": paymentURI, "FuzzDescriptor": descriptor,
        "FuzzBSMS": bsms, "FuzzLabels": labels, "FuzzSeedBackup": seedBackup, "FuzzImage": image,
    ]
}
