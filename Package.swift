// swift-tools-version:6.1
// Loom: a local LLM inference engine for Linux with true guided generation.
//
// Data flows one way: CTensor ← Engine ← Provider → Grammar, and ChatTemplate ← Engine (the
// interpreter knows nothing of models; Engine only reads a template out of a GGUF file).
// No target passes unsafe compiler flags: SIMD is chosen at run time (CPUID + OS state checks) through
// per-function `__attribute__((target(...)))`, so the package stays consumable by version.
import PackageDescription

let package = Package(
    name: "Loom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoomJSON", targets: ["LoomJSON"]),
        .library(name: "ChatTemplate", targets: ["ChatTemplate"]),
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
        // The Jinja2 chat-template interpreter (Hugging Face's `apply_chat_template` semantics);
        // model-agnostic, so it is usable without Engine. Engine only reads templates out of GGUF.
        .target(name: "ChatTemplate", dependencies: ["LoomJSON"]),
        .target(name: "Engine", dependencies: ["CTensor", "ChatTemplate", "LoomJSON"]),
        .target(name: "Grammar", dependencies: ["LoomJSON"]),
        .target(name: "Provider", dependencies: ["Engine", "Grammar", "LoomJSON", "ChatTemplate"]),
        // HTTP lives in its own targets so apps that do not need it never link FoundationNetworking.
        // ChatCompletions: any OpenAI-compatible server behind LanguageModelSession (client side).
        .target(name: "ChatCompletions", dependencies: ["Provider", "LoomJSON"]),
        // HTTPServer: a POSIX-socket HTTP/1.1 server with SSE streaming, used by `loom serve`.
        .target(name: "HTTPServer", dependencies: ["LoomJSON"]),
        // ChatCompletionsServer: any LanguageModel served as OpenAI-compatible Chat Completions (`loom serve`).
        .target(name: "ChatCompletionsServer", dependencies: ["Provider", "HTTPServer", "LoomJSON"]),
        .executableTarget(name: "loom", dependencies: ["CTensor", "Engine", "ChatTemplate", "Grammar", "Provider", "LoomJSON", "HTTPServer", "ChatCompletionsServer"]),

        // Locators shared by the test targets (../shared, the default model); in no product.
        .target(name: "LoomTestSupport", path: "Tests/Support"),
        // Test support only (never a dependency of a product): counts heap allocations of
        // opted-in threads by interposing malloc, for the zero-allocation decode tests.
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        .testTarget(name: "CTensorTests", dependencies: ["CTensor"]),
        .testTarget(name: "LoomJSONTests", dependencies: ["LoomJSON"]),
        .testTarget(name: "ChatTemplateTests", dependencies: ["LoomTestSupport", "ChatTemplate", "LoomJSON"]),
        .testTarget(name: "EngineTests", dependencies: ["LoomTestSupport", "CTensor", "Engine", "ChatTemplate", "LoomJSON", "AllocationCounter"]),
        .testTarget(name: "GrammarTests", dependencies: ["LoomTestSupport", "Grammar"]),
        .testTarget(name: "ProviderTests", dependencies: ["LoomTestSupport", "Provider", "Engine", "Grammar", "ChatTemplate", "LoomJSON"]),
        .testTarget(name: "ChatCompletionsTests", dependencies: ["ChatCompletions", "HTTPServer"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["LoomTestSupport", "HTTPServer"]),
        .testTarget(name: "ChatCompletionsServerTests", dependencies: ["LoomTestSupport", "ChatCompletionsServer", "Provider", "HTTPServer", "LoomJSON"]),
        // Suites that run real models end to end (the default model and ../shared models).
        .testTarget(name: "EndToEndTests", dependencies: ["LoomTestSupport", "Engine", "Grammar", "Provider", "ChatCompletions", "HTTPServer", "ChatCompletionsServer"]),
    ],
    swiftLanguageModes: [.v6]
)
