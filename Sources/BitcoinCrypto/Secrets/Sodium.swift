internal import CSodium

/// One-time initialisation of libsodium, which every sodium call in this module goes through first.
enum Sodium {
    /// Calls `sodium_init` once per process; libsodium reports 0 (first call) or 1 (already done) on success.
    static let initialized: Bool = {
        let code = sodium_init()
        precondition(code >= 0, "sodium_init failed (\(code)); libsodium cannot run on this system")
        return true
    }()

    /// Makes sure libsodium is initialised before a call.
    @inline(__always)
    static func ensure() { _ = initialized }
}
