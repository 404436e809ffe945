// swift-tools-version:6.1
// Loom: a local LLM inference engine for Linux with true guided generation.
//
// Data flows one way: CTensor ← Engine ← Provider → Grammar.
// No target passes unsafe compiler flags: SIMD is chosen at run time (CPUID + OS state checks) through
// per-function `__attribute__((target(...)))`, so the package stays consumable by version.
import PackageDescription

let package = Package(
    name: "Loom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoomJSON", targets: ["LoomJSON"]),
        .library(name: "Engine", targets: ["Engine"]),
        .library(name: "Grammar", targets: ["Grammar"]),
        .library(name: "Provider", targets: ["Provider"]),
        .library(name: "ChatCompletions", targets: ["ChatCompletions"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "ChatCompletionsServer", targets: ["ChatCompletionsServer"]),
        .executable(name: "loom", targets: ["loom"]),
    ],
    targets: [
        // C kernels: block formats, quantized products, norms, RoPE, softmax, sampling, thread pool.
        // OpenBLAS is loaded at run time (see blas.c) so that its core type can be chosen
        // before it initialises; only libdl/libpthread/libm are linked here.
        .target(
            name: "CTensor",
            cSettings: [.define("_GNU_SOURCE")],
            linkerSettings: [.linkedLibrary("m"), .linkedLibrary("pthread"), .linkedLibrary("dl")]
        ),
        // Order-preserving, lossless JSON shared by every layer (schemas, templates, CLI, HTTP).
        .target(name: "LoomJSON"),
        .target(name: "Engine", dependencies: ["CTensor", "LoomJSON"]),
        .target(name: "Grammar", dependencies: ["CTensor", "LoomJSON"]),
        .target(name: "Provider", dependencies: ["Engine", "Grammar", "LoomJSON"]),
        // HTTP lives in its own targets so apps that do not need it never link FoundationNetworking.
        // ChatCompletions: any OpenAI-compatible server behind LanguageModelSession (client side).
        .target(name: "ChatCompletions", dependencies: ["Provider", "LoomJSON"]),
        // HTTPServer: a POSIX-socket HTTP/1.1 server with SSE streaming, used by `loom serve`.
        .target(name: "HTTPServer", dependencies: ["LoomJSON"]),
        // ChatCompletionsServer: any LanguageModel served as OpenAI-compatible Chat Completions (`loom serve`).
        .target(name: "ChatCompletionsServer", dependencies: ["Provider", "HTTPServer", "LoomJSON"]),
        .executableTarget(name: "loom", dependencies: ["Engine", "Grammar", "Provider", "LoomJSON", "HTTPServer", "ChatCompletions", "ChatCompletionsServer"]),

        // Locators shared by the test targets (../shared, the default model); in no product.
        .target(name: "LoomTestSupport", path: "Tests/Support"),
        // Test support only (never a dependency of a product): counts heap allocations of
        // opted-in threads by interposing malloc, for the zero-allocation decode tests.
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        .testTarget(name: "CTensorTests", dependencies: ["CTensor"]),
        .testTarget(name: "LoomJSONTests", dependencies: ["LoomJSON"]),
        .testTarget(name: "EngineTests", dependencies: ["LoomTestSupport", "Engine"]),
        .testTarget(name: "GrammarTests", dependencies: ["LoomTestSupport", "Grammar"]),
        .testTarget(name: "ProviderTests", dependencies: ["LoomTestSupport", "Provider"]),
        .testTarget(name: "ChatCompletionsTests", dependencies: ["ChatCompletions", "HTTPServer"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["LoomTestSupport", "HTTPServer"]),
        .testTarget(name: "ChatCompletionsServerTests", dependencies: ["LoomTestSupport", "ChatCompletionsServer", "Provider", "HTTPServer", "LoomJSON"]),
        // Every suite that loads GGUF weights and runs a forward pass (the default model, ../shared
        // models, the synthetic fixtures), so the unit test targets above never do.
        .testTarget(name: "EndToEndTests", dependencies: ["LoomTestSupport", "CTensor", "Engine", "Grammar", "Provider", "ChatCompletions", "HTTPServer", "ChatCompletionsServer", "AllocationCounter"]),
    ],
    swiftLanguageModes: [.v6]
)
