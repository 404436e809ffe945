import Engine
import Foundation
import Provider

/// Failures specific to running a model locally, beside the portable `LanguageModelError`s.
public enum LocalLanguageModelError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The model file could not be read or describes a model Loom cannot run.
    case modelLoadFailed(path: String, reason: ModelLoadError)
    /// The model's chat template could not be parsed or rendered.
    case chatTemplateFailed(String)
    /// The response-token budget is smaller than the shortest output the schema admits, so no
    /// valid output could be produced; found before any generation.
    case schemaCannotFitBudget(schemaName: String?, minimumTokens: Int, budget: Int)
    /// The schema admits no value at all (contradictory keywords such as `minimum` above
    /// `maximum`, or `false`), so nothing could be generated; found before any generation.
    case schemaAdmitsNoValue(schemaName: String?)
    /// A configuration value that cannot work (context size, threads, …).
    case invalidConfiguration(String)
    /// A `GenerationOptions` value that cannot be honoured (negative temperature, top-k of 0, …).
    case invalidGenerationOptions(String)
    /// The model wrote a tool call that is not well formed (possible only where no grammar
    /// guarantees calls: the pipelined variant).
    case malformedToolCall(String)
    /// `LocalLanguageModel.kvCacheBudget` is smaller than the KV cache of a single engine, so no
    /// request could ever run; thrown before any compute.
    case kvCacheBudgetTooSmall(budget: Int, engineBytes: Int)
    /// Something inside Loom failed that the request did not cause (a bug or a resource limit).
    case internalFailure(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .modelLoadFailed(let path, let reason): return "cannot load model \(path): \(reason)"
        case .chatTemplateFailed(let why): return "chat template failed: \(why)"
        case .schemaCannotFitBudget(let name, let minimum, let budget):
            return "the shortest output valid for schema \(name ?? "(unnamed)") needs \(minimum) tokens, "
                + "more than the response budget of \(budget)"
        case .schemaAdmitsNoValue(let name):
            return "the schema\(name.map { " '\($0)'" } ?? "") admits no value: its keywords contradict each other"
        case .invalidConfiguration(let why): return "invalid configuration: \(why)"
        case .invalidGenerationOptions(let why): return "invalid generation options: \(why)"
        case .malformedToolCall(let why): return "malformed tool call: \(why)"
        case .kvCacheBudgetTooSmall(let budget, let engine):
            return "the KV-cache budget of \(budget) bytes is smaller than one engine's KV cache (\(engine) bytes); "
                + "raise kvCacheBudget or lower contextSize"
        case .internalFailure(let why): return "internal failure: \(why)"
        }
    }

    /// Same as `description`, so `localizedDescription` explains the failure.
    public var errorDescription: String? { description }
}
