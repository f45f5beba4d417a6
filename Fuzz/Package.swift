// swift-tools-version:6.1
// libFuzzer targets for every parser of outside data (docs/architecture.md section 9). Built apart from the main package, with
// coverage and ASan given to every module (SwiftPM cannot pass settings to a dependency's targets):
//   cd Fuzz && swift build -c release -Xswiftc -sanitize=address \
//       -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table -Xswiftc -parse-as-library \
//       --product FuzzUR
//   .build/release/FuzzUR -runs=1000000 /tmp/fuzz-ur corpus/FuzzUR
// The targets' bodies live in the main package (FuzzTargets), whose FuzzReplayTests replay every corpus in `swift test`.
// See docs/fuzzing.md.
import Foundation
import PackageDescription

/// The toolchain's libFuzzer archive without `main`: `$AIRLOCK_FUZZER_RUNTIME` when set, else found beside the
/// `swift` on PATH (`<toolchain>/usr/lib/clang/<version>/lib/linux/libclang_rt.fuzzer_no_main-<arch>.a`).
func fuzzerRuntime() -> String {
    let environment = ProcessInfo.processInfo.environment
    if let path = environment["AIRLOCK_FUZZER_RUNTIME"], !path.isEmpty { return path }
    #if arch(arm64)
    let arch = "aarch64"
    #else
    let arch = "x86_64"
    #endif
    let files = FileManager.default
    for directory in (environment["PATH"] ?? "").split(separator: ":").map(String.init) {
        let swift = URL(fileURLWithPath: directory).appendingPathComponent("swift")
        guard files.isExecutableFile(atPath: swift.path) else { continue }
        let usr = swift.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
        let clang = usr.appendingPathComponent("lib/clang")
        let versions = ((try? files.contentsOfDirectory(atPath: clang.path)) ?? []).sorted {
            $0.compare($1, options: .numeric) == .orderedDescending
        }
        for version in versions {
            let archive = clang.appendingPathComponent("\(version)/lib/linux/libclang_rt.fuzzer_no_main-\(arch).a")
            if files.fileExists(atPath: archive.path) { return archive.path }
        }
    }
    // Not found: the link fails naming this file; set AIRLOCK_FUZZER_RUNTIME to the archive's path.
    return "libclang_rt.fuzzer_no_main-\(arch).a"
}

let fuzz: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])]
// SwiftPM aliases `main` to `<Target>_main` for executables, so link libFuzzer without its own main; each target's
// `<Target>_main` calls LLVMFuzzerRunDriver (FuzzDriver).
let linkFuzz: [LinkerSetting] = [
    .unsafeFlags([
        "-sanitize=address",
        "-Xlinker", "--whole-archive",
        "-Xlinker", fuzzerRuntime(),
        "-Xlinker", "--no-whole-archive", "-lstdc++",
    ])
]

let package = Package(
    name: "AirlockFuzz",
    dependencies: [.package(name: "Airlock", path: "..")],
    targets: [
        .target(name: "FuzzDriver", swiftSettings: fuzz)
    ]
        + [
            "FuzzPSBT", "FuzzUR", "FuzzBBQr", "FuzzPNG", "FuzzRLP", "FuzzEIP4527", "FuzzTypedData", "FuzzElectrum",
            "FuzzEsplora", "FuzzCore", "FuzzChance", "FuzzJSON", "FuzzKeystore", "FuzzPaymentURI", "FuzzDescriptor",
            "FuzzBSMS", "FuzzLabels", "FuzzSeedBackup", "FuzzImage",
        ].map { name in
            .executableTarget(
                name: name,
                dependencies: ["FuzzDriver", .product(name: "FuzzTargets", package: "Airlock")],
                swiftSettings: fuzz,
                linkerSettings: linkFuzz
            )
        }
)
