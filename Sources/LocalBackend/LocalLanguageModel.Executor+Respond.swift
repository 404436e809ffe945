import Engine
import Foundation
import Grammar
import LoomSupport
import Provider

extension LocalLanguageModel.Executor {
    /// Generates a response: renders and tokenizes the transcript, refuses what cannot fit before
    /// any compute, then streams text as it is decoded — through the sequential engine (under the
    /// schema's grammar when there is one) or the pipelined engine for free text.
    ///
    /// - Throws: `LanguageModelError.contextSizeExceeded` (before compute),
    ///   `.unsupportedCapability(.guidedGeneration)` for a schema on the pipelined variant,
    ///   `.unsupportedGenerationGuide` for a schema Loom cannot enforce exactly or for
    ///   `toolCallingMode: .required` with no tools enabled (as Apple's on-device model does),
    ///   `.unsupportedTranscriptContent` for attachments, `.timeout` past the configured deadline,
    ///   `CancellationError` when the task is cancelled, `LocalLanguageModelError` otherwise.
    public func respond(to request: LanguageModelExecutorGenerationRequest, model: LocalLanguageModel,
                        streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
        let started = ContinuousClock.now
        guard let metrics = runtime.metrics else {
            return try await generate(request, channel: channel, started: started, recorder: nil)
        }
        let recorder = RequestRecorder(metrics: metrics.requests, request: request, started: started)
        do {
            try await generate(request, channel: channel, started: started, recorder: recorder)
            recorder.finish(.ok)
        } catch {
            recorder.finish(RequestRecorder.outcome(of: error))
            throw error
        }
    }

    /// `respond`'s work, measured by `recorder` when the model records metrics.
    private func generate(_ request: LanguageModelExecutorGenerationRequest, channel: LanguageModelExecutorGenerationChannel,
                          started: ContinuousClock.Instant, recorder: RequestRecorder?) async throws {
        if request.schema != nil, configuration.variant == .pipelined {
            throw LanguageModelError.unsupportedCapability(.init(
                capability: .guidedGeneration,
                debugDescription: "the pipelined engine exposes no logits, so it cannot constrain output to a schema; use the sequential or automatic variant"))
        }
        try Task.checkCancellation()
        let options = request.generationOptions
        let tools = request.enabledToolDefinitions
        let toolsActive = !tools.isEmpty && options.toolCallingMode?.kind != .disallowed
        if tools.isEmpty, options.toolCallingMode?.kind == .required {
            throw LanguageModelError.requiredToolCallWithoutTools
        }
        let thinking = ReasoningConfiguration.resolve(level: request.contextOptions.reasoningLevel,
                                                      templateSource: template?.source, markers: reasoning).thinkingEnabled
        let prompt = try preparePrompt(request.transcript, schema: request.schema, contextOptions: request.contextOptions,
                                       tools: tools)
        let sampling = try SamplingResolution.parameters(options, defaults: configuration.sampling)
        let contextSize = configuration.contextSize
        guard prompt.tokens.count < contextSize else {
            throw LanguageModelError.contextSizeExceeded(.init(
                contextSize: contextSize, tokenCount: prompt.tokens.count,
                debugDescription: "the rendered transcript is \(prompt.tokens.count) tokens; the context holds \(contextSize) (prompt and response)"))
        }
        recorder?.prompt(prompt.tokens.count)
        let room = contextSize - prompt.tokens.count
        let requested = options.maximumResponseTokens ?? configuration.sampling.maximumResponseTokens ?? room
        guard requested >= 0 else {
            throw LocalLanguageModelError.invalidGenerationOptions("maximumResponseTokens \(requested) is negative")
        }
        let budget = min(requested, room)
        let logProbabilities = options.logProbabilities
        if let logProbabilities, !logProbabilities.isValid {
            throw LocalLanguageModelError.invalidGenerationOptions(
                "logProbabilities.alternatives \(logProbabilities.alternatives) is outside 0...\(GenerationOptions.LogProbabilities.maximumAlternatives)")
        }
        // The one place tool calling plugs in: with tools on a variant that has logits, the
        // dialect's grammar admits text (or the schema's JSON) or well-formed calls.
        var grammar: Grammar?
        if let schema = request.schema { grammar = try await self.grammar(for: schema) }
        // With tools offered but calls disallowed the same grammar (mode .disallowed) keeps the
        // call syntax out of the text.
        if !tools.isEmpty, configuration.variant != .pipelined {
            grammar = try await toolGrammar(tools: tools, mode: options.toolCallingMode, response: grammar,
                                            schema: request.schema, thinking: thinking,
                                            startsInReasoning: prompt.startsInReasoning)
        } else if let response = grammar, prompt.startsInReasoning {
            // A schema alone, but the prompt opened a reasoning block: the JSON comes after it closes.
            grammar = try await toolGrammar(tools: [], mode: .disallowed, response: response,
                                            schema: request.schema, thinking: thinking, startsInReasoning: true)
        }

        // Log-probabilities need the logits, which only the sequential path reads (the pipelined
        // engine samples inside the scheduler), so such a request runs there on every variant.
        let useSequential = grammar != nil || configuration.variant == .sequential || logProbabilities != nil
        typealias Key = LocalGenerationMetadata.Key
        let metadata: LanguageModelExecutorGenerationChannel.Metadata = [
            Key.modelID.rawValue: modelID, Key.requestID.rawValue: request.id.uuidString,
            Key.variant.rawValue: useSequential ? LocalLanguageModel.Variant.sequential.rawValue
                : LocalLanguageModel.Variant.pipelined.rawValue,
        ]
        let parser = ToolCallStreamParser(dialect: toolsActive ? dialect : nil, reasoning: reasoning,
                                          startsInReasoning: prompt.startsInReasoning,
                                          callsOnlyAtStart: request.schema != nil ? true : nil)
        let events = EventTranslation(channel: channel, metadata: metadata, promptTokens: prompt.tokens.count, parser: parser,
                                      trimLeadingSpace: template == nil, reportsLogProbabilities: logProbabilities != nil)
        let flag = CancellationFlag()
        let deadline = DeadlineWatch(timeout: configuration.timeout, flag: flag)
        defer { deadline.stop() }

        let summary: GenerationSummary
        do {
            summary = try await withTaskCancellationHandler {
                if useSequential {
                    return try await runSequential(prompt: prompt, sampling: sampling, budget: budget, grammar: grammar,
                                                   logProbabilities: logProbabilities?.alternatives, flag: flag, deadline: deadline, started: started, events: events,
                                                   recorder: recorder)
                }
                return try await runPipelined(prompt: prompt, sampling: sampling, budget: budget, flag: flag,
                                              deadline: deadline, started: started, events: events, recorder: recorder)
            } onCancel: {
                flag.cancel()
            }
        } catch {
            throw translate(error, deadline: deadline, schema: request.schema, budget: budget)
        }
        recorder?.speculation(proposed: summary.proposedTokens, accepted: summary.acceptedTokens)
        if deadline.fired { throw translate(EngineError.cancelled, deadline: deadline, schema: nil, budget: budget) }
        try Task.checkCancellation()

        var extra: LanguageModelExecutorGenerationChannel.Metadata = [
            Key.cachedTokenCount.rawValue: summary.cachedTokens, Key.stopReason.rawValue: summary.stop.rawValue,
            Key.tokensPerSecond.rawValue: summary.tokensPerSecond ?? 0,
            Key.timeToFirstToken.rawValue: summary.timeToFirstToken ?? 0,
            Key.proposedTokens.rawValue: summary.proposedTokens, Key.acceptedTokens.rawValue: summary.acceptedTokens,
            Key.speculativeRuns.rawValue: summary.speculativeRuns,
        ]
        if grammar != nil {
            extra[Key.sampledTokens.rawValue] = summary.sampledTokens
            extra[Key.sampledOutsideMask.rawValue] = summary.sampledOutsideMask
            extra[Key.forcedTokens.rawValue] = summary.forcedTokens
            extra[Key.budgetSteers.rawValue] = summary.budgetSteers
        }
        try await events.finish(summary, extra: extra)
    }

    /// Maps engine and loop failures onto the errors callers handle.
    private func translate(_ error: any Error, deadline: DeadlineWatch, schema: GenerationSchema?, budget: Int) -> any Error {
        if deadline.fired {
            return LanguageModelError.timeout(.init(debugDescription: "no response within \(configuration.timeout.map { "\($0)" } ?? "-")"))
        }
        switch error {
        case let e as EngineError:
            switch e {
            case .cancelled: return CancellationError()
            case .contextLimitExceeded(let size, let count):
                return LanguageModelError.contextSizeExceeded(.init(contextSize: size, tokenCount: count, debugDescription: e.description))
            default: return LocalLanguageModelError.internalFailure(e.description)
            }
        case is SchemaAdmitsNothing:
            return LocalLanguageModelError.schemaAdmitsNoValue(schemaName: schema.flatMap { $0.name.isEmpty ? nil : $0.name })
        case let e as BudgetTooSmall:
            return LocalLanguageModelError.schemaCannotFitBudget(schemaName: schema.flatMap { $0.name.isEmpty ? nil : $0.name }, minimumTokens: e.minimumTokens, budget: budget)
        default:
            return error
        }
    }

    /// Generates on the sequential engine, on a worker thread, streaming updates back.
    private func runSequential(prompt: PreparedPrompt, sampling: SamplingParameters, budget: Int, grammar: Grammar?,
                               logProbabilities: Int?, flag: CancellationFlag, deadline: DeadlineWatch, started: ContinuousClock.Instant,
                               events: EventTranslation, recorder: RequestRecorder?) async throws -> GenerationSummary {
        // Borrowed here, not on the worker: waiting for an engine within the KV budget must
        // suspend a task, never block a thread.
        let pooled = try await pool.borrow(for: prompt.tokens, deadline: deadline)
        recorder?.admit()
        let (stream, continuation) = AsyncThrowingStream<GenerationUpdate, any Error>.makeStream()
        continuation.onTermination = { _ in flag.cancel() }
        let done = Completion()
        let work = SequentialWork(executor: self, pooled: pooled, prompt: prompt, sampling: sampling, budget: budget,
                                  grammar: grammar, logProbabilities: logProbabilities, flag: flag, started: started)
        let pool = self.pool
        let launched = WorkerThread.start(counting: workerThreads) {
            defer {
                pool.giveBack(pooled)
                done.signal()
            }
            do {
                let summary = try work.run { continuation.yield($0) }
                continuation.yield(.finished(summary))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        guard launched else {
            // Settling a sequential engine nobody used returns at once.
            pool.giveBack(pooled)
            throw LocalLanguageModelError.internalFailure("could not start a worker thread")
        }
        var summary: GenerationSummary?
        do {
            for try await update in stream {
                // Updates the worker made before it saw the cancellation may still be queued
                // behind a busy consumer: a cancelled request sends none of them.
                if Task.isCancelled { throw EngineError.cancelled }
                switch update {
                case .prefilled(_, let cached):
                    recorder?.prefilled(cached: cached)
                    events.prefilled(cachedTokens: cached)
                case .text(let text, let count):
                    recorder?.tokens(count)
                    try await events.text(text, tokenCount: count)
                case .logProbabilities(let rows):
                    events.logProbabilities(rows.entries(alternatives: logProbabilities ?? 0, tokenizer: tokenizer))
                case .finished(let s): summary = s
                }
            }
        } catch {
            flag.cancel()
            await done.wait()
            throw error
        }
        flag.cancel()
        await done.wait()
        guard let summary else { throw EngineError.cancelled }
        return summary
    }

    /// Generates free text on the pipelined engine: its producer thread decodes ahead while this
    /// task detokenizes and sends events.
    private func runPipelined(prompt: PreparedPrompt, sampling: SamplingParameters, budget: Int,
                              flag: CancellationFlag, deadline: DeadlineWatch, started: ContinuousClock.Instant,
                              events: EventTranslation, recorder: RequestRecorder?) async throws -> GenerationSummary {
        let pooled = try await pool.borrow(for: prompt.tokens, deadline: deadline)
        recorder?.admit()
        defer {
            let pool = self.pool
            flag.cancel()
            if !WorkerThread.start(counting: workerThreads, { pool.giveBack(pooled) }) { pool.giveBack(pooled) }
        }
        guard let engine = pooled.pipelined else { throw LocalLanguageModelError.internalFailure("pipelined engine missing") }
        var summary = GenerationSummary(stop: .maximumTokens)
        summary.promptTokens = prompt.tokens.count
        let stream = try engine.start(prompt: prompt.tokens, sampling: sampling, stopTokens: Set(tokenizer.endOfGenerationTokens),
                                      maxTokens: budget, cancellation: flag, speculation: configuration.speculationLimit)
        let collected = UpdateBuffer()
        var output = OutputText(tokenizer: tokenizer, stopSequences: prompt.stopSequences, markerTokens: markerTokens) { collected.items.append($0) }
        var generated = 0
        var firstAt: ContinuousClock.Instant?
        var stopped = false
        for try await token in stream {
            // As the sequential path: tokens decoded ahead of a cancellation are not sent.
            if Task.isCancelled { throw EngineError.cancelled }
            if firstAt == nil {
                firstAt = .now
                summary.timeToFirstToken = (firstAt! - started).seconds
                events.prefilled(cachedTokens: stream.prefill.cachedTokenCount)
            }
            generated += 1
            recorder?.tokens(1)
            if generated == 1 { recorder?.prefilled(cached: stream.prefill.cachedTokenCount) }
            stopped = output.append([token])
            for case .text(let text, let count) in collected.take() { try await events.text(text, tokenCount: count) }
            if stopped { flag.cancel(); break }
        }
        output.flush()
        for case .text(let text, let count) in collected.take() { try await events.text(text, tokenCount: count) }
        if !stopped, Task.isCancelled || stream.finishReason == .cancelled { throw EngineError.cancelled }
        summary.cachedTokens = stream.prefill.cachedTokenCount
        recorder?.prefilled(cached: summary.cachedTokens)
        summary.outputTokens = generated
        (summary.proposedTokens, summary.acceptedTokens, summary.speculativeRuns) = stream.speculation
        switch stream.finishReason {
        case .stopToken?: summary.stop = .endOfGeneration
        default: summary.stop = stopped ? .stopSequence : .maximumTokens
        }
        if let firstAt, generated > 1 {
            let seconds = (ContinuousClock.now - firstAt).seconds
            if seconds > 0 { summary.tokensPerSecond = Double(generated - 1) / seconds }
        }
        return summary
    }
}

/// The blocking half of a sequential generation, run on a worker thread.
private struct SequentialWork: @unchecked Sendable {
    let executor: LocalLanguageModel.Executor
    /// Borrowed by the caller, given back by the worker when the work ends.
    let pooled: PooledEngine
    let prompt: PreparedPrompt
    let sampling: SamplingParameters
    let budget: Int
    let grammar: Grammar?
    /// Alternatives per token when the request asks for log-probabilities.
    let logProbabilities: Int?
    let flag: CancellationFlag
    let started: ContinuousClock.Instant

    func run(_ emit: @escaping (GenerationUpdate) -> Void) throws -> GenerationSummary {
        let warm = executor.runtime.warmGuides
        let guide = grammar.map { grammar in
            warm.take(for: grammar) {
                GuidedDecoding(grammar: grammar, vocabulary: executor.vocabulary, tokenizer: executor.tokenizer,
                               byteTokens: executor.byteTokens, maskTime: executor.runtime.metrics?.grammarMask)
            }
        }
        defer { if let guide { warm.giveBack(guide) } }
        // Refuse before any compute when no output is valid, or the shortest cannot fit.
        if let guide {
            if guide.admitsNothing() { throw SchemaAdmitsNothing() }
            if let plan = guide.completionPlan(), plan.count > budget { throw BudgetTooSmall(minimumTokens: plan.count) }
        }
        pooled.settle()
        let sampler = try Sampler(vocabularySize: executor.weights.config.vocabularySize, parameters: sampling)
        var loop = GenerationLoop(engine: pooled.sequential, tokenizer: executor.tokenizer, sampler: sampler, guide: guide,
                                  stopSequences: prompt.stopSequences, markerTokens: executor.markerTokens, maximumTokens: budget, cancellation: flag,
                                  reusePrefix: true, speculation: executor.configuration.speculationLimit, started: started,
                                  emit: emit)
        if let logProbabilities {
            loop.logProbabilities = LogProbabilityRecorder(alternatives: logProbabilities,
                                                           vocabularySize: executor.weights.config.vocabularySize,
                                                           expectedTokens: budget)
        }
        return try loop.run(prompt: prompt.tokens)
    }
}

/// Updates collected synchronously, then sent asynchronously.
private final class UpdateBuffer {
    var items: [GenerationUpdate] = []
    func take() -> [GenerationUpdate] {
        defer { items.removeAll() }
        return items
    }
}
