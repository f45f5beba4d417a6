/// Errors from parsing or building scripts.
public enum ScriptError: Error, Equatable, Sendable {
    /// A push at `offset` claims `needed` bytes of data but only `available` remain.
    case truncatedPush(offset: Int, needed: Int, available: Int)
    /// A multisig threshold outside 1...n, or a key count outside what the template allows.
    case invalidThreshold(threshold: Int, keyCount: Int)
    /// A push of more than 520 bytes, the consensus limit on one stack element.
    case pushTooLarge(Int)
    /// A hash commitment of the wrong size (20 bytes for HASH160, 32 for SHA-256).
    case invalidHashLength(expected: Int, actual: Int)
    /// A witness version outside 0...16.
    case invalidWitnessVersion(Int)
    /// A witness program outside 2...40 bytes, or not 20 or 32 bytes for version 0.
    case invalidWitnessProgramLength(version: Int, length: Int)
}
