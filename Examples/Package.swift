// swift-tools-version:6.1
// Loom's examples: small programs that use the library the way an app would. A separate package
// so they depend on Loom exactly as a consumer does (by path here, by version in an app).
//
//   swift build --package-path Examples                   build them all (scripts/test does)
//   swift run --package-path Examples -c release WeatherAgent models/default.gguf
import PackageDescription

let package = Package(
    name: "LoomExamples",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Loom", path: "..")],
    targets: [
        // Timing and argument helpers the examples share (tok/s lines, the model path).
        .target(name: "ExampleSupport", dependencies: [.product(name: "Loom", package: "Loom")]),
        // A `Tool` called through the session's tool loop, with LocalLanguageModel.
        .executableTarget(name: "WeatherAgent", dependencies: [
            "ExampleSupport", .product(name: "Loom", package: "Loom"),
        ]),
        // A Codable type generated with `respond(generating:)`: the schema is derived, the output guaranteed.
        .executableTarget(name: "StructuredExtraction", dependencies: [
            "ExampleSupport", .product(name: "Loom", package: "Loom"),
        ]),
        // A trip planner written as Apple's Foundation Models documentation writes apps: `@Generable`
        // types with `@Guide`s, a DynamicProfile switching models, tokenCount(for:) budgets, and
        // streamed partial structured output. Imports only `Loom` (scripts/test runs it).
        .executableTarget(name: "TripPlanner", dependencies: [.product(name: "Loom", package: "Loom")]),
        // A custom LanguageModel + LanguageModelExecutor built from Loom's Engine and Grammar
        // (the code docs/custom-models.md walks through).
        .executableTarget(name: "CustomModel", dependencies: [
            "ExampleSupport",
            .product(name: "Provider", package: "Loom"),
            .product(name: "Engine", package: "Loom"),
            .product(name: "ChatTemplate", package: "Loom"),
            .product(name: "Grammar", package: "Loom"),
            .product(name: "LoomSupport", package: "Loom"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
