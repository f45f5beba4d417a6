import Testing
import WatcherWeb

/// What `serve` keeps in memory is bounded (issue 35's soak): the requests, scans and syncs of a page are the most
/// recent ones, the oldest dropped, so a server running for days does not grow with every send or scan.
@Suite("RecentItems")
struct RecentItemsTests {
    @Test("at most `limit` items are kept, the oldest dropped first")
    func bounded() {
        var recent = RecentItems<[UInt8]>(limit: 16, prefix: "r")
        var ids: [String] = []
        for n in 0..<10_000 { ids.append(recent.add([UInt8](repeating: UInt8(n % 256), count: 64))) }
        #expect(recent.count == 16)
        #expect(Set(ids).count == 10_000)  // an id is never handed out twice
        // The newest 16 are kept with their values; every older one reads as unknown.
        for (n, id) in ids.enumerated().suffix(16) {
            #expect(recent[id] == [UInt8](repeating: UInt8(n % 256), count: 64))
        }
        for id in ids.prefix(10_000 - 16) { #expect(recent[id] == nil) }
    }

    @Test("under the limit nothing is dropped (the control)")
    func underLimit() {
        var recent = RecentItems<Int>(limit: 16, prefix: "s")
        let ids = (0..<16).map { recent.add($0) }
        #expect(ids == (1...16).map { "s\($0)" })
        for (n, id) in ids.enumerated() { #expect(recent[id] == n) }
    }

    @Test("a kept item can be changed; a dropped or unknown id stays unknown")
    func update() {
        var recent = RecentItems<Int>(limit: 2, prefix: "sync")
        let first = recent.add(1)
        let second = recent.add(2)
        recent[second] = 20
        #expect(recent[second] == 20)
        _ = recent.add(3)
        recent[first] = 10
        #expect(recent[first] == nil)
        recent["sync99"] = 5
        #expect(recent["sync99"] == nil)
        #expect(recent.count == 2)
    }
}
