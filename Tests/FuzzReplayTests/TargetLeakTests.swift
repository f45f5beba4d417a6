import ChainBackends
import Testing

@testable import FuzzTargets

/// The fuzz targets free what they make (issue 35): LeakSanitizer stops a libFuzzer run at the first input that leaks,
/// and this replay build has no sanitizer, so the one leak found is pinned here with a weak reference.
@Suite("Fuzz targets free what they make")
struct TargetLeakTests {
    /// Runs FuzzElectrum on `text` with a handler only the target holds (and `keep` keeps); whether anything still
    /// holds the handler after.
    static func handlerOutlivesInput(_ text: String, keep: Bool = false) -> Bool {
        weak var held: LineChannelHandler?
        var kept: [LineChannelHandler] = []
        do {
            let handler = LineChannelHandler(host: "fuzz", port: 1)
            held = handler
            if keep { kept.append(handler) }
            FuzzTargets.electrum(Array(text.utf8), handler: handler)
        }
        return withExtendedLifetime(kept) { held != nil }
    }

    @Test("FuzzElectrum frees its channel, also when the line reader closed it on a broken line")
    func electrumFreesItsChannel() {
        // A broken line makes the handler close the channel itself; `finish()` then threw "already closed" before
        // the step that removes the handlers, and the channel and its pipeline kept each other alive.
        #expect(!Self.handlerOutlivesInput("not json\n"))
        #expect(!Self.handlerOutlivesInput("{\"id\":1,\"result\":5}\n{\"id\":2,\"result\":null}\n"))
        #expect(!Self.handlerOutlivesInput(""))
        // Control: a handler someone still holds is seen alive by the same check.
        #expect(Self.handlerOutlivesInput("not json\n", keep: true))
    }
}
