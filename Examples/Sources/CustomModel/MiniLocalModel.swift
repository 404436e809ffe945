import Provider

/// A small local model written from Loom's parts: Engine runs the GGUF file, Grammar makes
/// structured output valid by construction, Provider supplies the session around it.
///
/// The model value is only a description (cheap to build, `Hashable` to compare); the session
/// builds one `MiniLocalExecutor` per distinct configuration and keeps it for its lifetime.
struct MiniLocalModel: LanguageModel, Hashable {
    typealias Executor = MiniLocalExecutor

    /// The GGUF file.
    var path: String
    /// Kernel threads per generation.
    var threads = 2
    /// KV-cache positions per engine (prompt plus answer).
    var contextSize = 1024

    /// Guided generation is a promise: the session only sends schemas to models that declare it,
    /// and this executor keeps it by masking every token with a grammar. Tool calling is not
    /// declared, so the session never offers tools to this model.
    var capabilities: LanguageModelCapabilities { [.guidedGeneration] }

    /// Everything that changes behaviour, nothing per request: the model itself is the key.
    var executorConfiguration: MiniLocalModel { self }
}
