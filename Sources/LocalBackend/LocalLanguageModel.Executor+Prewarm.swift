import Engine
import Foundation
import Provider

extension LocalLanguageModel.Executor {
    /// Prepares for the session's next request off the caller's thread: the weights are already
    /// mapped (by `init`); this renders the transcript so far (instructions, history) without a
    /// generation prompt, evaluates it into the scheduler's KV pool through an idle engine (with
    /// none free, prewarming is skipped rather than queued behind requests), where the request's
    /// prompt finds its blocks, and runs one real decode step so every kernel path is warm. Failures are ignored: the request itself will report them.
    public func prewarm(model: LocalLanguageModel, transcript: Transcript) {
        _ = WorkerThread.start(counting: workerThreads) { [self] in
            // Tools offered in the instructions shape the system message, so they are part of the prefix.
            let tools = transcript.entries.lazy.compactMap { entry -> [Transcript.ToolDefinition]? in
                if case .instructions(let i) = entry { return i.toolDefinitions }
                return nil
            }.first ?? []
            guard let prompt = try? preparePrompt(transcript, schema: nil, contextOptions: ContextOptions(), tools: tools,
                                                  addGenerationPrompt: false),
                  !prompt.tokens.isEmpty, prompt.tokens.count < configuration.contextSize,
                  let pooled = pool.borrowIfAvailable(for: prompt.tokens) else { return }
            defer { pool.giveBack(pooled) }
            pooled.settle()
            let engine = pooled.sequential
            guard (try? engine.prefill(prompt.tokens)) != nil,
                  let sampler = try? Sampler(vocabularySize: weights.config.vocabularySize, parameters: .greedy),
                  let token = sampler.sample(engine.logits),
                  (try? engine.step(token)) != nil else { return }
            // The warm-up token is not part of any conversation.
            engine.reset()
        }
    }
}
