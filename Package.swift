// swift-tools-version:6.1
// Loom: a local LLM inference engine for Linux with true guided generation.
//
// Data flows one way: CTensor ← Engine ← LocalBackend → Grammar, and LocalBackend → Provider (the
// session framework, which knows no engine). ChatTemplate ← Engine reads a template out of a GGUF
// file; the interpreter knows nothing of models. `Loom` re-exports Provider and LocalBackend for apps,
// with the `@Generable`/`@Guide` macros (a compiler plugin built on SwiftSyntax); `LoomCore` is the
// same umbrella without them.
// No target passes unsafe compiler flags: SIMD is chosen at run time (CPUID + OS state checks) through
// per-function `__attribute__((target(...)))`, so the package stays consumable by version.
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Loom",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LoomSupport", targets: ["LoomSupport"]),
        .library(name: "LoomJSON", targets: ["LoomJSON"]),
        .library(name: "LoomMetrics", targets: ["LoomMetrics"]),
        .library(name: "ChatTemplate", targets: ["ChatTemplate"]),
        .library(name: "Engine", targets: ["Engine"]),
        .library(name: "Grammar", targets: ["Grammar"]),
        .library(name: "Loom", targets: ["Loom"]),
        // Loom without `@Generable`/`@Guide`: the same API for code that does not build SwiftSyntax.
        .library(name: "LoomCore", targets: ["LoomCore"]),
        .library(name: "GenerableMacros", targets: ["GenerableMacros"]),
        .library(name: "Provider", targets: ["Provider"]),
        .library(name: "LocalBackend", targets: ["LocalBackend"]),
        .library(name: "ChatCompletions", targets: ["ChatCompletions"]),
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
        .library(name: "ChatCompletionsServer", targets: ["ChatCompletionsServer"]),
        .executable(name: "loom", targets: ["LoomCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "603.0.0"),
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
        // The one lock (`Locked`), `CancellationFlag` and the one dedicated-thread helper; no dependencies.
        .target(name: "LoomSupport"),
        // Order-preserving, lossless JSON shared by every layer (schemas, templates, CLI, HTTP).
        .target(name: "LoomJSON"),
        // Counters, gauges and histograms a service exports (Prometheus text or its own format);
        // recorded lock-free, registered under the one lock.
        .target(name: "LoomMetrics", dependencies: ["LoomSupport"]),
        // The Jinja2 chat-template interpreter (Hugging Face's `apply_chat_template` semantics);
        // model-agnostic, so it is usable without Engine. Engine only reads templates out of GGUF.
        .target(name: "ChatTemplate", dependencies: ["LoomJSON"]),
        .target(name: "Engine", dependencies: ["CTensor", "ChatTemplate", "LoomJSON", "LoomSupport"]),
        .target(name: "Grammar", dependencies: ["LoomJSON", "LoomSupport"]),
        // The Foundation Models session framework: sessions, transcripts, schemas, tools; no engine.
        .target(name: "Provider", dependencies: ["LoomJSON", "LoomSupport"]),
        // LocalLanguageModel: GGUF files run by Engine, guided by Grammar, behind Provider's API.
        .target(name: "LocalBackend", dependencies: ["Provider", "Engine", "ChatTemplate", "Grammar", "LoomJSON", "LoomMetrics", "LoomSupport"]),
        // The compiler plugin behind `@Generable` and `@Guide` (runs inside the compiler; needs SwiftSyntax).
        .macro(name: "GenerableMacrosPlugin", dependencies: [
            .product(name: "SwiftSyntax", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            .product(name: "SwiftDiagnostics", package: "swift-syntax"),
        ]),
        // The macro declarations `@Generable` and `@Guide`; their expansions use Provider's API.
        .target(name: "GenerableMacros", dependencies: ["Provider", "GenerableMacrosPlugin"]),
        // Provider, LocalBackend and LoomMetrics, re-exported: the umbrella without macros.
        .target(name: "LoomCore", dependencies: ["Provider", "LocalBackend", "LoomMetrics"]),
        // The umbrella an app imports: LoomCore and the macros, as `import FoundationModels` brings both.
        .target(name: "Loom", dependencies: ["LoomCore", "GenerableMacros"]),
        // HTTP lives in its own targets so apps that do not need it never link FoundationNetworking.
        // ChatCompletions: any OpenAI-compatible server behind LanguageModelSession (client side).
        .target(name: "ChatCompletions", dependencies: ["Provider", "LoomJSON", "LoomSupport"]),
        // HTTPServer: a POSIX-socket HTTP/1.1 server with SSE streaming, used by `loom serve`.
        .target(name: "HTTPServer", dependencies: ["LoomJSON", "LoomSupport"]),
        // ChatCompletionsServer: any LanguageModel served as OpenAI-compatible Chat Completions (`loom serve`).
        .target(name: "ChatCompletionsServer", dependencies: ["Provider", "HTTPServer", "LoomJSON", "LoomMetrics", "LoomSupport"]),
        // The `loom` command-line tool (the target is LoomCLI so it never clashes with `Loom` by case).
        .executableTarget(name: "LoomCLI", dependencies: [
            "CTensor", "Engine", "ChatTemplate", "Grammar", "Provider", "LocalBackend", "LoomJSON", "LoomMetrics", "LoomSupport",
            "HTTPServer", "ChatCompletionsServer",
        ]),

        // Locators shared by the test targets (../shared, the default model); in no product.
        .target(name: "LoomTestSupport", dependencies: ["LoomSupport"], path: "Tests/Support"),
        // Test support only (never a dependency of a product): counts heap allocations of
        // opted-in threads by interposing malloc, for the zero-allocation decode tests.
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        // Test support only: stops one thread in place, for the pool's busy-machine test.
        .target(name: "ThreadFreezer", path: "Tests/ThreadFreezer"),
        .testTarget(name: "CTensorTests", dependencies: ["CTensor", "LoomSupport", "ThreadFreezer"]),
        .testTarget(name: "LoomJSONTests", dependencies: ["LoomJSON"]),
        .testTarget(name: "LoomMetricsTests", dependencies: ["LoomMetrics"]),
        .testTarget(name: "ChatTemplateTests", dependencies: ["LoomTestSupport", "ChatTemplate", "LoomJSON"]),
        .testTarget(name: "EngineTests", dependencies: ["LoomTestSupport", "Engine", "CTensor", "ChatTemplate", "LoomJSON", "LoomSupport"]),
        .testTarget(name: "GrammarTests", dependencies: ["LoomTestSupport", "Grammar", "LoomJSON", "LoomSupport"]),
        // Test targets follow the module graph: ProviderTests sees only the framework, and the
        // local backend's model-free suites (tool-call dialects, parsers, grammars) live apart.
        .testTarget(name: "ProviderTests", dependencies: ["LoomTestSupport", "Provider", "LoomJSON", "LoomSupport"]),
        .testTarget(name: "LocalBackendTests", dependencies: ["LoomTestSupport", "LocalBackend", "Provider", "Engine", "Grammar", "ChatTemplate", "LoomJSON"]),
        .testTarget(name: "ChatCompletionsTests", dependencies: ["LoomTestSupport", "ChatCompletions", "Provider", "HTTPServer", "LoomJSON", "LoomSupport"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["LoomTestSupport", "HTTPServer", "LoomJSON", "LoomSupport"]),
        .testTarget(name: "ChatCompletionsServerTests", dependencies: [
            "LoomTestSupport", "ChatCompletionsServer", "Provider", "HTTPServer", "LoomJSON", "LoomMetrics", "LoomSupport",
        ]),
        // The macros' expansions checked against schemas written by hand from docs/generable-macros.md,
        // round trips and partial mirrors; framework only (no engine).
        .testTarget(name: "GenerableMacrosTests", dependencies: ["GenerableMacros", "Provider", "LoomJSON"]),
        // The seeds' `@Generable` samples, compiled unchanged against `import Loom`.
        .testTarget(name: "GenerableSeedTests", dependencies: ["Loom", "ChatCompletions"]),
        // The `loom` executable's own parts (signal handling, the bench profile's arithmetic),
        // through @testable import.
        .testTarget(name: "LoomCLITests", dependencies: ["LoomCLI", "CTensor", "LoomJSON"]),
        // Every suite that loads GGUF weights and runs a forward pass (the default model, ../shared
        // models, the synthetic fixtures), so the unit test targets above never do.
        .testTarget(name: "EndToEndTests", dependencies: [
            "LoomTestSupport", "CTensor", "Engine", "Grammar", "Provider", "LocalBackend", "ChatCompletions", "HTTPServer",
            "ChatCompletionsServer", "LoomJSON", "LoomMetrics", "LoomSupport", "AllocationCounter", "GenerableMacros",
        ]),
    ],
    swiftLanguageModes: [.v6]
)
