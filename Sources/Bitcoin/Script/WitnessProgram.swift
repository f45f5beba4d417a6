/// A segwit witness program: a version 0...16 and a program of 2...40 bytes (20 or 32 for version 0).
///
/// - SeeAlso: https://github.com/bitcoin/bips/blob/master/bip-0141.mediawiki#witness-program
public struct WitnessProgram: Hashable, Sendable {
    /// The witness version, 0...16.
    public let version: Int
    /// The program bytes.
    public let program: [UInt8]

    /// Validates a witness version and program.
    ///
    /// - Throws: `ScriptError.invalidWitnessVersion` or `.invalidWitnessProgramLength`.
    public init(version: Int, program: [UInt8]) throws(ScriptError) {
        guard (0...16).contains(version) else { throw .invalidWitnessVersion(version) }
        guard (2...40).contains(program.count), version != 0 || program.count == 20 || program.count == 32 else {
            throw .invalidWitnessProgramLength(version: version, length: program.count)
        }
        self.version = version
        self.program = program
    }

    /// The scriptPubKey: OP_version followed by a push of the program.
    public var scriptPubKey: Script {
        Script([.number(version), .push(program)])
    }
}

extension WitnessProgram {
    /// A program the caller has already checked (a 20-byte hash or a 32-byte key with a fixed version).
    package init(uncheckedVersion version: Int, program: [UInt8]) {
        self.version = version
        self.program = program
    }
}
