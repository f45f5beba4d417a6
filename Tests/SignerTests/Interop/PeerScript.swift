import Foundation
import TestSupport

/// Runs `Tests/interop/psbt_peers.py` (embit, BDK and py-bitcoinkernel) with the package's `.venv` Python: one JSON
/// request on stdin, one JSON object on stdout.
///
/// A missing `.venv` or peer package is an error that says how to set it up, never a skipped test.
enum PeerScript {
    /// Errors from running the peer script.
    enum PeerError: Error, CustomStringConvertible {
        /// `.venv/bin/python` does not exist.
        case missingVirtualEnvironment(path: String)
        /// The script exited with a failure status.
        case failed(action: String, status: Int32, stdout: String, stderr: String)
        /// The script's answer is not a JSON object, or lacks a field.
        case malformedAnswer(action: String, detail: String)

        var description: String {
            switch self {
            case .missingVirtualEnvironment(let path):
                "\(path) not found: the interop tests need the peers' virtualenv (embit, bdkpython, "
                    + "py-bitcoinkernel); run scripts/setup or scripts/test to create it"
            case .failed(let action, let status, let stdout, let stderr):
                "psbt_peers.py \(action) exited with \(status): \(stdout) \(stderr)"
            case .malformedAnswer(let action, let detail): "psbt_peers.py \(action): \(detail)"
            }
        }
    }

    static var python: URL { Vectors.packageRoot.appendingPathComponent(".venv/bin/python") }
    static var script: URL { Vectors.packageRoot.appendingPathComponent("Tests/interop/psbt_peers.py") }

    /// Sends `request` (which names its `action`) and returns the decoded answer.
    static func call(_ request: [String: Any]) throws -> [String: Any] {
        let action = request["action"] as? String ?? "?"
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw PeerError.missingVirtualEnvironment(path: python.path)
        }
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path]
        let input = Pipe()
        let output = Pipe()
        // Diagnostics go to a file, so only one pipe must be drained while the child runs.
        let errorURL = FileManager.default.temporaryDirectory.appendingPathComponent("psbt_peers-\(UUID()).err")
        FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorURL) }
        let errors = try FileHandle(forWritingTo: errorURL)
        defer { try? errors.close() }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: request))
        try input.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errorData = FileManager.default.contents(atPath: errorURL.path) ?? Data()
        let stdout = String(decoding: outputData, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw PeerError.failed(
                action: action, status: process.terminationStatus, stdout: stdout,
                stderr: String(decoding: errorData, as: UTF8.self))
        }
        guard let answer = try JSONSerialization.jsonObject(with: outputData) as? [String: Any] else {
            throw PeerError.malformedAnswer(action: action, detail: "not a JSON object: \(stdout)")
        }
        return answer
    }

    /// The string field `key` of `answer`.
    static func string(_ answer: [String: Any], _ key: String, action: String) throws -> String {
        guard let value = answer[key] as? String else {
            throw PeerError.malformedAnswer(action: action, detail: "no string field \(key)")
        }
        return value
    }
}
