import CLISupport

// The `--json` output types of `node test`, `labels`, `backup` and `restore` (docs/architecture.md rule R9).

/// `node test --json`: the Bitcoin node's fields (null when it is not tested), the Ethereum node's under
/// `ethereum`, and `warnings` (a wallet on another network than its node).
struct NodeTestJSON: Encodable, Sendable {
    @NullEncoded var backend: String? = nil
    @NullEncoded var software: String? = nil
    @NullEncoded var genesis: String? = nil
    /// The Bitcoin node's chain: mainnet, testnet3, testnet4, signet, regtest.
    @NullEncoded var chain: String? = nil
    @NullEncoded var height: Int? = nil
    @NullEncoded var tip: String? = nil
    @NullEncoded var mode: String? = nil
    @NullEncoded var ethereum: Ethereum? = nil
    var warnings: [String] = []

    struct Ethereum: Encodable, Sendable {
        let url: String
        let chainId: UInt64
        let block: UInt64
    }
}

/// `node show --json`: the Bitcoin node's URL and proxy (null when not set) and the Ethereum node's.
struct NodeShowJSON: Encodable, Sendable {
    @NullEncoded var url: String?
    @NullEncoded var proxy: String?
    @NullEncoded var ethereum: NodeReport? = nil
}

/// `labels export FILE --json`.
struct LabelsExportJSON: Encodable, Sendable {
    let exported: Int
    let file: String
}

/// `labels import FILE --json`.
struct LabelsImportJSON: Encodable, Sendable {
    let imported: Int
}

/// `backup --out FILE --json`.
struct BackupJSON: Encodable, Sendable {
    let file: String
    let wallets: [String]
}

/// `restore FILE --json`.
struct RestoreJSON: Encodable, Sendable {
    let restored: [String]
}
