internal import CSecp256k1

/// The process-wide libsecp256k1 context, created once and randomised against side channels.
///
/// After `secp256k1_context_randomize` the context is only read, which libsecp256k1 allows from any thread.
enum Secp256k1Context {
    nonisolated(unsafe) static let shared: OpaquePointer = {
        guard let context = secp256k1_context_create(UInt32(SECP256K1_CONTEXT_NONE)) else {
            preconditionFailure("secp256k1_context_create failed")
        }
        let seed = SecureRandom.bytes(32)
        let code = secp256k1_context_randomize(context, seed)
        precondition(code == 1, "secp256k1_context_randomize failed")
        return context
    }()
}
