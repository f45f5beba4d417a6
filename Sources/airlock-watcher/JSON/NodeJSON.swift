import CLISupport

// The `--json` output types of `node test`, `labels`, `backup` and `restore` (STYLE.md R9).

/// `node test --json`.
struct NodeTestJSON: Encodable, Sendable {
    let backend: String
    let software: String
    @NullEncoded var genesis: String?
    let height: Int
    let tip: String
    @NullEncoded var mode: String?
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
