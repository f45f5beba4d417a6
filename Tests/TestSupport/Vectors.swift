import Foundation

/// Locates and loads the public test vectors in `Tests/Vectors/` (provenance and licences in its README and LICENSES.md).
public enum Vectors {
    /// Errors while locating or reading a vector file.
    public enum VectorsError: Error, CustomStringConvertible {
        /// The `Tests/Vectors` directory was not found in the package.
        case notFound(searched: [String])
        /// A vector file is missing or unreadable.
        case unreadable(path: String)
        /// A vector file does not have the expected shape.
        case malformed(path: String, detail: String)

        public var description: String {
            switch self {
            case .notFound(let searched): "Tests/Vectors not found; searched: \(searched.joined(separator: ", "))"
            case .unreadable(let path): "cannot read vector file \(path)"
            case .malformed(let path, let detail): "vector file \(path) is malformed: \(detail)"
            }
        }
    }

    /// The root of this package (the directory holding Package.swift).
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Tests/TestSupport/Vectors.swift
        return url
    }()

    /// The `Tests/Vectors` directory of this package; nothing outside the repository is read.
    public static func directory() throws -> URL {
        let candidate = packageRoot.appendingPathComponent("Tests/Vectors")
        guard FileManager.default.fileExists(atPath: candidate.path) else {
            throw VectorsError.notFound(searched: [candidate.path])
        }
        return candidate
    }

    /// The bytes of the vector file at `relativePath` (for example `bip32/bip32_vectors.json`).
    public static func data(_ relativePath: String) throws -> Data {
        let url = try directory().appendingPathComponent(relativePath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw VectorsError.unreadable(path: url.path)
        }
        return data
    }

    /// The text of the vector file at `relativePath`.
    public static func text(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self)
    }

    /// The vector file at `relativePath` decoded as JSON into `T`.
    public static func json<T: Decodable>(_ relativePath: String, as type: T.Type = T.self) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase  // the files' snake_case keys as camelCase properties
        return try decoder.decode(T.self, from: try data(relativePath))
    }

    /// The vector file at `relativePath` parsed as untyped JSON (dictionaries, arrays, strings, numbers).
    public static func anyJSON(_ relativePath: String) throws -> Any {
        try JSONSerialization.jsonObject(with: try data(relativePath), options: [.fragmentsAllowed])
    }
}

/// Hex helpers for tests only (the library's own hex codec is under test elsewhere).
public enum TestHex {
    /// Bytes of a hex string; traps on malformed test data, which is a bug in the test, not in the code under test.
    public static func bytes(_ hex: String) -> [UInt8] {
        let chars = Array(hex.utf8)
        precondition(chars.count % 2 == 0, "odd-length hex in test data")
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var i = 0
        while i < chars.count {
            guard let hi = nibble(chars[i]), let lo = nibble(chars[i + 1]) else {
                preconditionFailure("bad hex in test data")
            }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// Lower-case hex of `bytes`.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
