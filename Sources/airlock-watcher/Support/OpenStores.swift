import Synchronization
import Watcher

/// The stores this process has opened, by data directory.
///
/// The Ethereum routing looks at the wallet before the command is parsed, and the command then works with the same
/// open database instead of opening it (and setting it up, and checkpointing it on close) a second time: that second
/// open was a fifth of `send`'s time (issue 19, docs/benchmarks.md).
enum OpenStores {
    private static let stores = Mutex<[String: Store]>([:])

    /// The store in `directory`, opened (and created when needed) on first use.
    ///
    /// - Throws: `StoreError.dataDirectory` or `.sqlite`.
    static func store(directory: String) throws(StoreError) -> Store {
        try stores.withLock { (stores: inout [String: Store]) throws(StoreError) -> Store in
            if let store = stores[directory] { return store }
            let store = try Store(directory: directory)
            stores[directory] = store
            return store
        }
    }
}
