import BitcoinCrypto
import Foundation
import Testing

/// `FileOutput`, the one rule for writing files (docs/architecture.md section 2, "Writing files").
@Suite("FileOutput")
struct FileOutputTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "fileoutput-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    @Test("a new path and a regular file are replaced; a link to one is followed and kept")
    func regularFiles() throws {
        let path = directory + "/new.txt"
        #expect(try FileOutput.destination(of: path) == .replace(path))
        try FileOutput.write(Array("one\n".utf8), to: path)
        #expect(try FileOutput.destination(of: path) == .replace(path))
        try FileOutput.write(Array("two\n".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two\n")

        let link = directory + "/link.txt"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "new.txt")
        #expect(try FileOutput.destination(of: link) == .replace(directory + "/new.txt"))
        try FileOutput.write(Array("three\n".utf8), to: link)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "new.txt")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "three\n")
    }

    @Test("a FIFO, /dev/null and /dev/stdout are written through")
    func specialFiles() throws {
        let fifo = directory + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(try FileOutput.destination(of: fifo) == .writeThrough(fifo))
        #expect(try FileOutput.destination(of: "/dev/null") == .writeThrough("/dev/null"))
        #expect(try FileOutput.destination(of: "/dev/stdout") == .writeThrough("/dev/stdout"))
        #expect(try FileOutput.destination(of: "/dev/fd/1") == .writeThrough("/dev/fd/1"))
        try FileOutput.write(Array("discarded\n".utf8), to: "/dev/null")
        var info = stat()
        #expect(lstat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }

    @Test("a directory is refused with what it is, and the vault rule refuses a device")
    func refusals() throws {
        #expect {
            try FileOutput.write([1], to: directory)
        } throws: { ($0 as? FileOutput.Failure)?.reason.hasPrefix("it is a directory") == true }
        #expect {
            try FileOutput.replaceRegularFile([1], at: "/dev/null", overwrite: true)
        } throws: { ($0 as? FileOutput.Failure)?.reason == "it is a character device" }
        #expect(throws: FileOutput.Failure.self) { try FileOutput.requireRegularFileOrAbsent("/dev/zero") }
        try FileOutput.requireRegularFileOrAbsent(directory + "/absent")
        // Not replacing an existing file is checked atomically.
        let path = directory + "/once"
        try FileOutput.replaceRegularFile([1], at: path, overwrite: false)
        #expect {
            try FileOutput.replaceRegularFile([2], at: path, overwrite: false)
        } throws: { ($0 as? FileOutput.Failure)?.alreadyExists == true }
    }
}
