import Engine
import Foundation
import LocalBackend
import LoomJSON
import Provider

/// Guided tg through the path `loom run --schema` and every service take: a
/// `LanguageModelSession` on a `LocalLanguageModel` (automatic variant) asked for the schema's
/// JSON greedily, so the session's generation loop runs as users run it — a token mask every
/// sampled step, grammar-forced runs evaluated as one batch, closing before the budget ends —
/// until the document is complete. Beside it, free text with the same prompt, as many tokens,
/// sampled inside the scheduler as free requests are. Rates count tokens after the first, so
/// prompt evaluation stays out of them.
struct BenchGuided {
    let model: LocalLanguageModel
    let schema: GenerationSchema
    let maximumTokens: Int
    static let prompt = "Answer with one JSON object."

    init(schemaPath: String, modelPath: String, threads: Int, kv: KVCacheType, tokens: Int) throws {
        schema = try GenerationSchema(jsonSchema: JSONValue(parsing: FileInput.text(schemaPath)))
        model = LocalLanguageModel(path: modelPath, variant: .automatic, contextSize: 512 + tokens, threads: threads,
                                   kvCacheType: kv)
        maximumTokens = tokens
    }

    /// One repetition: guided and free tokens per second, the guided output's tokens and how many
    /// of them the grammar forced.
    func repetition() async throws -> (guided: Double, free: Double, tokens: Int, forced: Int) {
        let guided = try await LanguageModelSession(model: model).respond(
            to: Self.prompt, schema: schema, includeSchemaInPrompt: false,
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: maximumTokens))
        let guidedFigures = ResponseFigures(guided.transcriptEntries)
        let tokens = guidedFigures.outputTokens
        let free = try await LanguageModelSession(model: model).respond(
            to: Self.prompt, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: max(tokens, 2)))
        guard let guidedRate = guidedFigures.local.tokensPerSecond,
              let freeRate = ResponseFigures(free.transcriptEntries).local.tokensPerSecond, guidedRate > 0, freeRate > 0 else {
            throw RuntimeError("guided bench: a response too short to time (under two tokens)")
        }
        return (guidedRate, freeRate, tokens, guidedFigures.local.forcedTokens ?? 0)
    }
}
