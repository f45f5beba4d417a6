/// A report that lists items (`addresses`, `utxos`, `history`, the wallets of `backup`): its JSON is the array of its
/// entries.
public protocol ListReport: Encodable {
    associatedtype Entry: Encodable
    var entries: [Entry] { get }
}

extension ListReport {
    /// The array of the entries.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries)
    }
}
