// swift-tools-version:6.1
// Airlock: an air-gapped Bitcoin signer and its watch-only online companion.
// The module graph draws the offline/online line (docs/architecture.md section 1, rule R8):
// `airlock-signer` and everything it depends on never reach networking code. ArchitectureTests guards this.
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Airlock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "airlock-signer", targets: ["airlock-signer"]),
        .executable(name: "airlock-watcher", targets: ["airlock-watcher"]),
        .executable(name: "airlock-bench", targets: ["airlock-bench"]),
        // The offline libraries as one product, for the libFuzzer package in Fuzz/ (built apart with -sanitize=fuzzer).
        .library(
            name: "AirlockOffline",
            targets: [
                "Codecs", "BitcoinCrypto", "Bitcoin", "Descriptors", "SeedBackup", "MessageSigning", "Chance",
                "SilentPayments", "Ethereum",
                "AirgapTransport", "QRImage", "Signer", "SignerReports", "EthereumSigner", "AirGap", "SignToContract",
            ]),
        // The one-input functions of the libFuzzer targets, for Fuzz/ and for the corpus replay in FuzzReplayTests.
        .library(name: "FuzzTargets", targets: ["FuzzTargets"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Online side only (airlock-watcher); ArchitectureTests checks the signer never reaches them.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // C libraries from Debian, one Swift module imports each (docs/architecture.md rule R2).
        .systemLibrary(name: "CSecp256k1", pkgConfig: "libsecp256k1", providers: [.apt(["libsecp256k1-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CNettle", pkgConfig: "nettle", providers: [.apt(["nettle-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CZBar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
        // Linux seccomp/BPF headers and wrappers of the variadic prctl/syscall (glibc; nothing to link).
        .systemLibrary(name: "CAirGap"),
        .systemLibrary(name: "CMalloc"),

        // Offline side.
        // Hex, base64 and the one strict JSON parser and writer: Foundation only, at the bottom of the graph.
        .target(name: "Codecs", swiftSettings: strict),
        .target(name: "BitcoinCrypto", dependencies: ["CSecp256k1", "CSodium", "CNettle"], swiftSettings: strict),
        // Bitcoin: primitives and PSBT (as rust-bitcoin); the modules beside it depend on it, never the other way.
        .target(name: "Bitcoin", dependencies: ["BitcoinCrypto", "Codecs"], swiftSettings: strict),
        // BIP322 and legacy message signing and verifying.
        .target(name: "MessageSigning", dependencies: ["Bitcoin", "BitcoinCrypto", "Codecs"], swiftSettings: strict),
        // The anti-exfil (sign-to-contract) protocol's PSBT fields, the signer's answer and the host's session and checks.
        .target(name: "SignToContract", dependencies: ["Bitcoin", "BitcoinCrypto"], swiftSettings: strict),
        // Descriptors, miniscript, policies, BSMS, and the PSBT work that needs them (as rust-miniscript).
        .target(
            name: "Descriptors", dependencies: ["Bitcoin", "BitcoinCrypto", "Codecs", "MessageSigning"],
            swiftSettings: strict),
        // Silent payments: BIP352 addresses and outputs, BIP374 DLEQ proofs, BIP375 PSBT fields and rules.
        .target(name: "SilentPayments", dependencies: ["Bitcoin", "BitcoinCrypto", "Codecs"], swiftSettings: strict),
        // Seed backups: BIP39 words, SeedQR, SLIP-39 shares.
        .target(name: "SeedBackup", dependencies: ["Bitcoin", "BitcoinCrypto", "Codecs"], swiftSettings: strict),
        // The Chance wallet's `multisig:` text protocol.
        .target(name: "Chance", dependencies: ["Bitcoin", "BitcoinCrypto", "Codecs"], swiftSettings: strict),
        .target(name: "Ethereum", dependencies: ["BitcoinCrypto", "Codecs"], swiftSettings: strict),
        .target(
            name: "AirgapTransport", dependencies: ["Bitcoin", "BitcoinCrypto", "Codecs", "CZlib"],
            swiftSettings: strict),
        .target(name: "QRImage", dependencies: ["CQREncode", "CZBar", "CPNG", "CJPEG", "CGIF"], swiftSettings: strict),
        // The signer's decisions: vault, audit journal, accounts, reviews and refusal rules, Bitcoin signing.
        .target(
            name: "Signer",
            dependencies: [
                "Bitcoin", "BitcoinCrypto", "Codecs", "Descriptors", "SeedBackup", "MessageSigning", "Chance",
                "SilentPayments",
                "Ethereum", "SignToContract",
            ],
            swiftSettings: strict
        ),
        // Ethereum requests (EIP-4527) on the signer: the call review, the session and the sign flow.
        .target(
            name: "EthereumSigner",
            dependencies: [
                "Signer", "ClearSigning", "AirgapTransport", "Bitcoin", "BitcoinCrypto", "Codecs", "Ethereum",
            ],
            swiftSettings: strict),
        // ERC-7730 clear signing: descriptors, their ABI decoding and the rendering of calls in words.
        .target(name: "ClearSigning", dependencies: ["Bitcoin", "Codecs", "Ethereum"], swiftSettings: strict),
        // The signer's process hardening: seccomp filters, the network-interface check, no core dumps.
        // The signer's --json reports (info, sign, keys, tokens, backups), built from Signer's results.
        .target(
            name: "SignerReports",
            dependencies: ["Signer", "Bitcoin", "BitcoinCrypto", "Codecs", "Descriptors", "SeedBackup", "Ethereum"],
            swiftSettings: strict
        ),
        .target(name: "AirGap", dependencies: ["BitcoinCrypto", "Codecs", "CAirGap"], swiftSettings: strict),
        .target(
            name: "CLISupport",
            dependencies: [
                "AirgapTransport", "QRImage", "Bitcoin", "BitcoinCrypto", "Codecs", "Descriptors", "MessageSigning",
                "Chance",
                "Ethereum", "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "airlock-signer",
            dependencies: [
                "Signer", "SignerReports", "EthereumSigner", "AirGap", "Bitcoin", "BitcoinCrypto", "Codecs",
                "SignToContract",
                "Descriptors", "SeedBackup",
                "Chance", "Ethereum", "AirgapTransport", "QRImage", "CLISupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),

        // Online side. ChainCore is what the wallet and the backends share, with no networking (docs/architecture.md rule R8).
        .target(
            name: "ChainCore", dependencies: ["Bitcoin", "BitcoinCrypto", "Codecs", "Ethereum"], swiftSettings: strict),
        .target(
            name: "ChainBackends",
            dependencies: [
                "Bitcoin", "BitcoinCrypto", "Codecs", "ChainCore", "Ethereum",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // EmbeddedChannel: `HTTPClient.parse` runs a recorded response through the live client's codecs.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "Watcher",
            dependencies: [
                "Bitcoin", "BitcoinCrypto", "Codecs", "Descriptors", "Chance", "ChainCore", "Ethereum",
                "SilentPayments",
                "AirgapTransport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // The watcher's commands as library flows over the wallet: send, bump, finalize, combine, broadcast, convert,
        // import, wallets, backup, node.
        .target(
            name: "WatcherFlows",
            dependencies: [
                "Watcher", "Bitcoin", "BitcoinCrypto", "Codecs", "Descriptors", "Chance", "ChainCore", "Ethereum",
                "AirgapTransport", "SilentPayments", "SignToContract",
            ],
            swiftSettings: strict
        ),
        // The watcher's Ethereum side: account sync, spends, broadcasts, their flows, and the choice of chain.
        .target(
            name: "WatcherEthereum",
            dependencies: [
                "Watcher", "Bitcoin", "BitcoinCrypto", "Codecs", "ChainCore", "Ethereum", "AirgapTransport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strict
        ),
        // `airlock-watcher serve`: the local web app over the Watcher flows, on NIOHTTP1 (loopback only).
        .target(
            name: "WatcherWeb",
            dependencies: [
                "Watcher", "WatcherFlows", "WatcherEthereum", "ChainCore", "Bitcoin", "BitcoinCrypto", "Codecs",
                "Ethereum", "AirgapTransport", "QRImage",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "airlock-watcher",
            dependencies: [
                "Watcher", "WatcherFlows", "WatcherEthereum", "WatcherWeb", "ChainCore", "ChainBackends", "Bitcoin",
                "BitcoinCrypto", "Codecs", "Descriptors", "Chance",
                "AirgapTransport", "QRImage", "CLISupport", "Ethereum", "SignToContract",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "airlock-bench",
            dependencies: [
                "Bitcoin", "BitcoinCrypto", "Codecs", "Descriptors", "SeedBackup", "Ethereum", "AirgapTransport",
                "QRImage", "SignToContract",
                "Signer", "Watcher",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),

        // The fuzz targets' bodies (Fuzz/, docs/fuzzing.md), built here so that `swift test` replays the corpora.
        .target(
            name: "FuzzTargets",
            dependencies: [
                "Bitcoin", "BitcoinCrypto", "Codecs", "Chance", "Ethereum", "AirgapTransport", "QRImage", "Signer",
                "ChainCore", "ChainBackends", "Descriptors", "SeedBackup", "Watcher",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            path: "Fuzz/Sources/FuzzTargets"
        ),

        // Tests: one target per module, vectors read from Tests/Vectors through TestSupport.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "CodecsTests", dependencies: ["Codecs", "TestSupport"]),
        .testTarget(
            name: "BitcoinCryptoTests",
            dependencies: ["BitcoinCrypto", "Codecs", "CSecp256k1", "CSodium", "TestSupport"]),
        .testTarget(name: "BitcoinTests", dependencies: ["Bitcoin", "BitcoinCrypto", "Codecs", "TestSupport"]),
        .testTarget(
            name: "DescriptorsTests",
            dependencies: [
                "Descriptors", "MessageSigning", "SeedBackup", "Bitcoin", "BitcoinCrypto", "Codecs", "TestSupport",
            ]),
        .testTarget(
            name: "SilentPaymentsTests",
            dependencies: ["SilentPayments", "Bitcoin", "BitcoinCrypto", "Codecs", "TestSupport"]),
        .testTarget(
            name: "SeedBackupTests", dependencies: ["SeedBackup", "Bitcoin", "BitcoinCrypto", "Codecs", "TestSupport"]),
        .testTarget(
            name: "MessageSigningTests",
            dependencies: ["MessageSigning", "Bitcoin", "BitcoinCrypto", "Codecs", "TestSupport"]),
        .testTarget(
            name: "ChanceTests", dependencies: ["Chance", "Bitcoin", "BitcoinCrypto", "Codecs", "TestSupport"]),
        .testTarget(
            name: "EthereumTests",
            dependencies: ["Ethereum", "Bitcoin", "BitcoinCrypto", "Codecs", "SeedBackup", "TestSupport"]),
        .testTarget(
            name: "AirgapTransportTests",
            dependencies: ["AirgapTransport", "Bitcoin", "BitcoinCrypto", "Codecs", "TestSupport"]),
        .testTarget(name: "QRImageTests", dependencies: ["QRImage", "TestSupport"]),
        .testTarget(
            name: "SignerTests",
            dependencies: [
                "Signer", "SignerReports", "EthereumSigner", "AirGap", "Bitcoin", "BitcoinCrypto", "Codecs",
                "Descriptors", "SeedBackup",
                "Chance", "Ethereum", "SilentPayments", "SignToContract", "TestSupport",
            ]),
        .testTarget(
            name: "CLISupportTests",
            dependencies: [
                "CLISupport", "AirgapTransport", "QRImage", "Bitcoin", "BitcoinCrypto", "Codecs", "Descriptors",
                "Ethereum",
                "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "ClearSigningTests",
            dependencies: ["ClearSigning", "Signer", "Bitcoin", "Codecs", "Ethereum", "TestSupport"]),
        .testTarget(name: "ArchitectureTests", dependencies: ["TestSupport"]),
        .testTarget(
            name: "ChainBackendsTests",
            dependencies: [
                "ChainBackends", "ChainCore", "Watcher", "Bitcoin", "BitcoinCrypto", "Codecs", "Ethereum",
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSOCKS", package: "swift-nio-extras"),
            ]
        ),
        .testTarget(name: "FuzzReplayTests", dependencies: ["FuzzTargets", "ChainBackends", "TestSupport"]),
        .testTarget(
            name: "ChainCoreTests", dependencies: ["ChainCore", "Bitcoin", "BitcoinCrypto", "Codecs", "TestSupport"]),
        .testTarget(
            name: "WatcherWebTests",
            dependencies: ["WatcherWeb", "Watcher", "Codecs", "TestSupport"]),
        .testTarget(
            name: "WatcherTests",
            dependencies: [
                "Watcher", "WatcherFlows", "WatcherEthereum", "ChainCore", "Bitcoin", "Descriptors", "SeedBackup",
                "Chance", "Ethereum", "AirgapTransport", "SilentPayments", "TestSupport",
            ]),
    ]
)
