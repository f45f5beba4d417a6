// swift-tools-version:6.1
// libFuzzer targets for every parser of outside data (docs/architecture.md section 9). Built apart from the main package, with
// coverage and ASan given to every module (SwiftPM cannot pass settings to a dependency's targets):
//   cd Fuzz && swift build -c release -Xswiftc -sanitize=address \
//       -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table -Xswiftc -parse-as-library \
//       --product FuzzUR
//   .build/release/FuzzUR -runs=1000000 /tmp/fuzz-ur corpus/FuzzUR
// See docs/fuzzing.md.
import PackageDescription

let fuzz: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-parse-as-library"])]
// SwiftPM aliases `main` to `<Target>_main` for executables, so link libFuzzer without its own main; each target's
// `<Target>_main` calls LLVMFuzzerRunDriver (FuzzDriver).
let linkFuzz: [LinkerSetting] = [
    .unsafeFlags([
        "-sanitize=address",
        "-Xlinker", "--whole-archive",
        "-Xlinker", "/opt/swift/usr/lib/clang/21/lib/linux/libclang_rt.fuzzer_no_main-x86_64.a",
        "-Xlinker", "--no-whole-archive", "-lstdc++",
    ])
]

let package = Package(
    name: "AirlockFuzz",
    dependencies: [.package(name: "Airlock", path: "..")],
    targets: [
        .target(name: "FuzzDriver", swiftSettings: fuzz)
    ] + ["FuzzPSBT", "FuzzUR", "FuzzBBQr", "FuzzPNG", "FuzzRLP", "FuzzEIP4527", "FuzzTypedData"].map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzDriver", .product(name: "AirlockOffline", package: "Airlock")],
            swiftSettings: fuzz,
            linkerSettings: linkFuzz
        )
    }
)
