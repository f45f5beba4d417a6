import Foundation
import TestSupport

/// A temporary directory for one test, removed when the workbench is released, plus the outside tools the tests
/// run (ImageMagick `convert`, the `qrencode` CLI, `zbarimg`, the package's Python virtualenv).
final class Workbench {
    /// The directory files are written to.
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("qrimage-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The path of `name` inside the directory.
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes `bytes` to `name` and returns its path.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let target = path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// The bytes of `name`.
    func read(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    /// Runs ImageMagick `convert` with `arguments` in the directory; file names are relative to it.
    func convert(_ arguments: [String]) throws { try run("convert", arguments) }

    /// Runs `tool` (found on PATH) in the directory and returns its standard output; throws on a non-zero exit.
    @discardableResult
    func run(_ tool: String, _ arguments: [String], input: [UInt8]? = nil) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input)) }
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolError.failed(
                tool: tool, status: process.terminationStatus, stderr: String(decoding: err, as: UTF8.self))
        }
        return [UInt8](out)
    }

    /// Runs Python code with the package's virtualenv (segno, qrcode, pillow); `sys.argv[1:]` are `arguments`.
    func python(_ code: String, _ arguments: [String] = []) throws {
        let python = Vectors.packageRoot.appendingPathComponent(".venv/bin/python").path
        try run(python, ["-c", code] + arguments)
    }
}

/// A failed outside tool.
enum ToolError: Error, CustomStringConvertible {
    case failed(tool: String, status: Int32, stderr: String)

    var description: String {
        switch self {
        case .failed(let tool, let status, let stderr): "\(tool) exited with \(status): \(stderr)"
        }
    }
}

/// Reproducible pseudo-random bytes (xorshift64*), so failures can be replayed.
struct TestBytes {
    private var state: UInt64

    init(seed: UInt64) { state = seed | 1 }

    mutating func next(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return UInt8(truncatingIfNeeded: (state &* 2_685_821_657_736_338_717) >> 56)
        }
    }

    /// Upper-case BC-UR-like text: a header, then two letters per payload byte (bytewords minimal style).
    mutating func urText(payload: Int, part: Int = 1, of total: Int = 1) -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let body = String(next(2 * payload).map { letters[Int($0) % 26] })
        return "UR:CRYPTO-PSBT/\(part)-\(total)/\(body)"
    }
}
