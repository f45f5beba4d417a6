/// The most recent items a long-running `serve` keeps in memory, under ids it hands out.
///
/// The requests made by send, the scans and the syncs started from the page: at most `limit`, the oldest dropped
/// first, so memory stays flat however long the server runs (issue 35's soak). An id that was dropped reads as
/// unknown, like one never given.
public struct RecentItems<Value> {
    public let limit: Int
    private let prefix: String
    private var items: [String: Value] = [:]
    private var order: [String] = []
    private var head = 0
    private var next = 0

    public init(limit: Int, prefix: String) {
        precondition(limit > 0, "keep at least one item")
        self.limit = limit
        self.prefix = prefix
    }

    /// Keeps `value` under a new id (the prefix and a counter that never repeats); drops the oldest past `limit`.
    public mutating func add(_ value: Value) -> String {
        next += 1
        let id = "\(prefix)\(next)"
        items[id] = value
        order.append(id)
        while items.count > limit, head < order.count {
            items[order[head]] = nil
            head += 1
        }
        if head > limit {  // compact the order list now and then, so it does not grow either
            order.removeFirst(head)
            head = 0
        }
        return id
    }

    public subscript(id: String) -> Value? {
        get { items[id] }
        set {
            // Only an id still kept can be changed; a dropped or unknown one stays unknown.
            guard items[id] != nil, let newValue else { return }
            items[id] = newValue
        }
    }

    public var count: Int { items.count }
}

extension RecentItems: Sendable where Value: Sendable {}
