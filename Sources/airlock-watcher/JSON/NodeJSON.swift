import CLISupport

// The `--json` output types of `labels`, `backup` and `restore` (docs/architecture.md rule R9).

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
