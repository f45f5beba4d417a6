import AirgapTransport
import ArgumentParser
import Foundation

/// `--camera` and `--timeout` (docs/signer.md, "Camera"): the command's input argument then names a camera device
/// (none: `/dev/video0`) or a video file standing in for one, read live until the payload is whole.
public struct CameraOptions: ParsableArguments, Sendable {
    @Flag(
        help: ArgumentHelp(
            "Read the QR codes live from a camera: the argument names its device (default /dev/video0), or a video "
                + "file that stands in for one."))
    public var camera = false

    @Option(
        help: ArgumentHelp(
            "With --camera: give up after SECONDS without the whole payload (exit 6).", valueName: "SECONDS"))
    public var timeout: Double?

    public init() {}

    public func validate() throws {
        if timeout != nil, !camera { throw ValidationError("--timeout needs --camera") }
        if let timeout, !(timeout > 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be more than 0 and at most 86400 seconds")
        }
    }

    /// `--timeout` as a duration.
    public var duration: Duration? { timeout.map { .milliseconds(Int(($0 * 1000).rounded())) } }

    /// The camera named by the command's arguments (none: the default device).
    ///
    /// - Throws: `CLIError` usage (1) for more than one argument or `-`; as `CameraSource.open`.
    public func source(_ arguments: [String]) throws -> CameraSource {
        guard arguments.count <= 1, arguments != ["-"] else {
            throw CLIError(.usage, "--camera reads one camera device or video file; give at most one (not '-')")
        }
        return try CameraSource.open(arguments.first)
    }

    /// The payload: from the camera with `--camera`, else from `arguments` as `InputReader.read` reads them.
    public func read(_ arguments: [String], expecting expected: Set<PayloadKind>? = nil) throws -> InputPayload {
        guard camera else { return try InputReader.read(arguments, expecting: expected) }
        return try InputReader.readCamera(try source(arguments), expecting: expected, timeout: duration)
    }

    /// Seconds for messages: "5" or "2.5".
    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard attoseconds != 0 else { return "\(seconds)" }
        let tenths = (Double(seconds) + Double(attoseconds) / 1e18) * 10
        return "\(tenths.rounded() / 10)"
    }
}
