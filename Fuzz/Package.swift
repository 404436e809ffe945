// swift-tools-version:6.1
// Loom's fuzz targets: one executable per parser, depending on the main package by path.
//
// Build with libFuzzer and AddressSanitizer (what `scripts/fuzz` does):
//     swift build -c release -Xswiftc -sanitize=fuzzer,address
// Built without `-sanitize=fuzzer`, each executable falls back to a deterministic mutation
// harness (see FuzzSupport/MutationHarness.swift), so the package builds with any toolchain.
import PackageDescription

let package = Package(
    name: "LoomFuzz",
    dependencies: [.package(name: "Loom", path: "..")],
    targets: [
        // Calls libFuzzer's driver when it is linked in (weak symbol), so targets need no `main` tricks.
        .target(name: "FuzzDriver"),
        .target(name: "FuzzSupport", dependencies: ["FuzzDriver"]),
        // A small fixed vocabulary and a checked random walk shared by the grammar targets.
        .target(name: "FuzzGrammarSupport", dependencies: ["FuzzSupport", .product(name: "Grammar", package: "Loom")]),
        .executableTarget(name: "FuzzGGUF", dependencies: [
            "FuzzSupport", .product(name: "Engine", package: "Loom"), .product(name: "ChatTemplate", package: "Loom"),
        ]),
        .executableTarget(name: "FuzzTokenizer", dependencies: ["FuzzSupport", .product(name: "Engine", package: "Loom")]),
        .executableTarget(name: "FuzzTemplate", dependencies: [
            "FuzzSupport", .product(name: "ChatTemplate", package: "Loom"), .product(name: "LoomJSON", package: "Loom"),
        ]),
        .executableTarget(name: "FuzzSchema", dependencies: ["FuzzSupport", "FuzzGrammarSupport", .product(name: "Grammar", package: "Loom")]),
        .executableTarget(name: "FuzzGBNF", dependencies: ["FuzzSupport", "FuzzGrammarSupport", .product(name: "Grammar", package: "Loom")]),
        .executableTarget(name: "FuzzRegex", dependencies: ["FuzzSupport", "FuzzGrammarSupport", .product(name: "Grammar", package: "Loom")]),
        .executableTarget(name: "FuzzMatcher", dependencies: ["FuzzSupport", "FuzzGrammarSupport", .product(name: "Grammar", package: "Loom")]),
    ],
    swiftLanguageModes: [.v6]
)
