import ChatTemplate
import Engine
import Foundation
import Grammar
import LoomJSON
import LoomMetrics
import LoomSupport
import Provider

/// Everything an executor holds for one configuration — the shared weights, tokenizer, chat
/// template, tool-call dialect, grammar vocabulary, the scheduler that runs every request's
/// sequence in shared forward passes over one KV pool, and compiled grammars — shared by every
/// executor (every session) with an equal configuration, so a new session starts warm and its
/// prompts reuse the blocks earlier requests left in the pool. Held weakly by the registry: it goes
/// away with its last executor.
final class LocalRuntime: Sendable {
    private static let registry = Locked<[LocalLanguageModel.Executor.Configuration: Slot]>([:])

    private struct WeakRuntime {
        weak var runtime: LocalRuntime?
    }

    private enum Slot {
        /// Loaded; held weakly, so the runtime goes away with its last executor.
        case live(WeakRuntime)
        /// Being loaded (on a worker thread) by this task.
        case loading(Task<LocalRuntime, any Error>)
    }

    /// The runtime for `configuration`, loaded on a worker thread on first use. Concurrent first
    /// uses await one load; nothing waits while holding the registry's lock, and no cooperative
    /// thread blocks on the load.
    static func shared(for configuration: LocalLanguageModel.Executor.Configuration) async throws -> LocalRuntime {
        enum Found { case live(LocalRuntime), loading(Task<LocalRuntime, any Error>) }
        let found = registry.withLock { table -> Found in
            switch table[configuration] {
            case .loading(let load)?: return .loading(load)
            case .live(let weak)?: if let live = weak.runtime { return .live(live) }
            case nil: break
            }
            let load = Task<LocalRuntime, any Error> {
                try await WorkerThread.run { try LocalRuntime(configuration: configuration) }
            }
            table[configuration] = .loading(load)
            return .loading(load)
        }
        let load: Task<LocalRuntime, any Error>
        switch found {
        case .live(let live): return live
        case .loading(let task): load = task
        }
        do {
            let runtime = try await load.value
            registry.withLock { table in
                if case .loading(load)? = table[configuration] { table[configuration] = .live(WeakRuntime(runtime: runtime)) }
                table = table.filter { _, slot in
                    guard case .live(let weak) = slot else { return true }
                    return weak.runtime != nil
                }
            }
            return runtime
        } catch {
            registry.withLock { table in
                if case .loading(load)? = table[configuration] { table[configuration] = nil }
            }
            throw error
        }
    }

    /// The loaded runtime an executor of `configuration` uses, nil when none is alive (nothing
    /// is loaded).
    static func live(for configuration: LocalLanguageModel.Executor.Configuration) -> LocalRuntime? {
        registry.withLock { table in
            if case .live(let weak)? = table[configuration] { return weak.runtime }
            return nil
        }
    }

    /// The runtime for `configuration`, loaded on the calling thread (which it blocks) when no
    /// live one exists. The lock is not held during the load: when another load of the same
    /// configuration finishes first, its runtime is used and this one dropped.
    static func sharedBlocking(for configuration: LocalLanguageModel.Executor.Configuration) throws -> LocalRuntime {
        let live = registry.withLock { table -> LocalRuntime? in
            if case .live(let weak)? = table[configuration] { return weak.runtime }
            return nil
        }
        if let live { return live }
        let made = try LocalRuntime(configuration: configuration)
        return registry.withLock { table -> LocalRuntime in
            if case .live(let weak)? = table[configuration], let winner = weak.runtime { return winner }
            // A load in flight (async) keeps its slot; it replaces this entry when it finishes.
            if case .loading? = table[configuration] { return made }
            table[configuration] = .live(WeakRuntime(runtime: made))
            return made
        }
    }

    /// The configuration this runtime was built from.
    let configuration: LocalLanguageModel.Executor.Configuration
    let weights: Engine.Model
    let tokenizer: Tokenizer
    let template: ChatTemplate?
    let bosText: String
    let eosText: String
    let facts: LocalModelInspection.Facts
    /// How this model writes tool calls (template-native family or the fallback).
    let dialect: ToolCallDialect
    /// The model's reasoning markers, nil when it has none.
    let reasoning: ReasoningMarkers?
    /// Control tokens that spell dialect or reasoning markers: decoded as their text.
    let markerTokens: Set<Int32>
    let vocabulary: GrammarVocabulary
    let byteTokens: [Int32]
    let pool: EnginePool
    /// Runs every request's sequence: one forward pass per step for all of them.
    let scheduler: Scheduler
    /// What this runtime records, when its model was given a metrics registry.
    let metrics: RuntimeMetrics?
    /// This runtime's worker threads (generation, schema compilation, prewarming, engine returns).
    let workerThreads = WorkerThread.Count()
    /// Compiled grammars kept per runtime (schemas and tool sets), least recently used evicted
    /// first: enough for the handful of schemas an app uses in rotation, bounded for a server
    /// whose clients send ever-new schemas.
    static let grammarCacheCapacity = 64
    private let grammars = Locked(LRUCache<String, Grammar>(capacity: LocalRuntime.grammarCacheCapacity))
    /// Bytes that matchers of earlier requests may keep warm for later requests of the same
    /// schema (a hot schema's automaton and masks are a few megabytes; a new schema's first
    /// request builds them cold).
    static let warmGuideBudget = 256 << 20
    /// Guided-decoding state kept warm per compiled grammar.
    let warmGuides: WarmGuides

    /// Loads (or shares, through `ModelStore.shared`) the model's weights and validates the file.
    /// - Throws: `LocalLanguageModelError.modelLoadFailed` for an unreadable, malformed or
    ///   unsupported file; `.chatTemplateFailed` when its chat template does not parse;
    ///   `.invalidConfiguration` for a context size or thread count that cannot work.
    init(configuration: LocalLanguageModel.Executor.Configuration) throws {
        self.configuration = configuration
        let path = configuration.path
        guard configuration.contextSize >= 16 else {
            throw LocalLanguageModelError.invalidConfiguration("context size \(configuration.contextSize) is below 16 tokens")
        }
        guard configuration.threads >= 1 else {
            throw LocalLanguageModelError.invalidConfiguration("thread count \(configuration.threads) must be at least 1")
        }
        do {
            weights = try ModelStore.shared.model(path: path)
        } catch {
            throw LocalLanguageModelError.modelLoadFailed(path: path, reason: error)
        }
        do {
            tokenizer = try Tokenizer(gguf: weights.file)
        } catch {
            throw LocalLanguageModelError.modelLoadFailed(path: path, reason: .badTokenizer("\(error)"))
        }
        do {
            template = try weights.file.chatTemplate()
        } catch {
            throw LocalLanguageModelError.chatTemplateFailed("\(error)")
        }
        bosText = weights.file.bosTokenText
        eosText = weights.file.eosTokenText
        facts = LocalModelInspection.facts(file: weights.file)
        let special = ToolCallingVocabulary.specialTokenTexts(of: tokenizer)
        dialect = ToolCallDialect.detect(template: template, specialTokens: special)
        reasoning = ReasoningMarkers.detect(specialTokens: special)
        let markers = dialect.markers + (reasoning.map { [$0.open, $0.close] } ?? [])
        markerTokens = ToolCallingVocabulary.markerTokenIDs(of: tokenizer, markers: markers)
        let size = max(weights.config.vocabularySize, tokenizer.vocabularySize)
        var pieces = ToolCallingVocabulary.grammarTokenBytes(of: tokenizer, markers: markers)
        while pieces.count < size { pieces.append([]) }
        vocabulary = GrammarVocabulary(tokens: pieces, endOfGeneration: tokenizer.endOfGenerationTokens.map(Int.init))
        byteTokens = GuidedDecoding.byteTokens(tokenizer: tokenizer, size: size)
        let transformer = TransformerConfiguration(threads: configuration.threads, contextLength: configuration.contextSize,
                                                   kvCacheType: configuration.kvCacheType)
        let model = weights
        let variant = configuration.variant
        let engineBytes = try Self.kvCacheBytes(config: weights.config, configuration: configuration)
        let budget = configuration.kvCacheBudget ?? engineBytes.multipliedReportingOverflow(by: LocalLanguageModel.defaultConcurrentSequences).partialValue
        guard budget >= engineBytes else {
            throw LocalLanguageModelError.kvCacheBudgetTooSmall(budget: budget, engineBytes: engineBytes)
        }
        // The budget holds `sequences` full contexts: that many requests decode together, and
        // more wait for a place (the engine pool's queue, with deadlines and cancellation).
        let sequences = budget / engineBytes
        let shared: Scheduler
        do {
            shared = try Scheduler(model: model, configuration: transformer,
                                   policy: SchedulerPolicy(maxSequences: sequences, kvBudgetBytes: budget),
                                   promptCache: configuration.promptCache)
        } catch {
            throw LocalLanguageModelError.invalidConfiguration("\(error)")
        }
        scheduler = shared
        let engines = EnginePool(engineBytes: engineBytes, budgetBytes: budget) { () throws -> PooledEngine in
            if variant == .sequential { return PooledEngine(sequential: SequentialEngine(scheduler: shared)) }
            return PooledEngine(pipelined: try PipelinedEngine(scheduler: shared))
        }
        pool = engines
        let warm = WarmGuides(budget: LocalRuntime.warmGuideBudget)
        warmGuides = warm
        metrics = configuration.metrics.map { RuntimeMetrics(registry: $0, scheduler: shared, pool: engines, warmGuides: warm) }
    }

    /// One engine's KV-cache bytes: keys and values, for every layer, at every position.
    static func kvCacheBytes(config: ModelDescription, configuration: LocalLanguageModel.Executor.Configuration) throws -> Int {
        let factors = [2, config.blockCount, configuration.contextSize, configuration.kvCacheType.rowBytes(elements: config.kvLength)]
        var total = 1
        for f in factors {
            let (product, overflow) = total.multipliedReportingOverflow(by: f)
            guard !overflow else {
                throw LocalLanguageModelError.invalidConfiguration("a KV cache of \(configuration.contextSize) positions is too large")
            }
            total = product
        }
        return total
    }

    /// What this executor's model supports (the vocabulary and template are known here).
    var capabilities: LanguageModelCapabilities {
        LocalModelInspection.capabilities(facts: facts, variant: configuration.variant)
    }

    /// The compiled tool-call grammar for a request (plain text or a well-formed call of one of
    /// `tools`, as `mode` allows; `response` in place of text under a schema), compiled on a
    /// large-stack worker thread and cached.
    ///
    /// `startsInReasoning` is `PreparedPrompt.startsInReasoning`: the generation prompt itself
    /// opened a reasoning block (`<think>` at its end, as Qwen3 and DeepSeek-R1 templates do), so
    /// the output starts inside it and the grammar must first admit the rest of it and its close
    /// marker. Without it the grammar would let a call or the schema's JSON start inside the
    /// thoughts, where the parser (which does know) reads it as reasoning.
    func toolGrammar(tools: [Transcript.ToolDefinition], mode: GenerationOptions.ToolCallingMode?,
                     response: Grammar?, schema: GenerationSchema?, thinking: Bool,
                     startsInReasoning: Bool) async throws -> Grammar {
        var key = "tools|\(mode?.kind.rawValue ?? "allowed")|\(thinking)|\(startsInReasoning)|\(schema?.jsonString ?? "-")"
        for t in tools { key += "|\(t.name)|\(t.description)|\(t.parameters.jsonString)" }
        if let known = grammars.withLock({ $0.value(for: key) }) { return known }
        let dialect = self.dialect
        let reasoning = self.reasoning
        let options = configuration.grammar
        let compiled: Grammar
        let compileStarted = ContinuousClock.now
        defer { metrics?.grammarCompile.observe(ContinuousClock.now - compileStarted) }
        do {
            compiled = try await WorkerThread.run(counting: workerThreads) { () throws -> Grammar in
                try ToolCallGrammar.forRequest(tools: tools, dialect: dialect, mode: mode, response: response,
                                               reasoning: reasoning, thinking: thinking,
                                               startsInReasoning: startsInReasoning, options: options)
            }
        } catch let error as ToolCallingError {
            switch error {
            case .invalidParameterSchema(let name, let reason):
                throw LanguageModelError.unsupportedGenerationGuide(.init(
                    schemaName: name, debugDescription: "cannot enforce the parameters of tool '\(name)' exactly: \(reason)"))
            default:
                throw LocalLanguageModelError.internalFailure(error.description)
            }
        }
        grammars.withLock { $0.insert(compiled, for: key) }
        return compiled
    }

    /// The model's name for metadata: the file name without its extension.
    var modelID: String {
        URL(fileURLWithPath: configuration.path).deletingPathExtension().lastPathComponent
    }

    /// The compiled grammar for `schema`, compiling it on a large-stack worker thread the first time.
    func grammar(for schema: GenerationSchema) async throws -> Grammar {
        let key = schema.jsonString
        if let known = grammars.withLock({ $0.value(for: key) }) { return known }
        let options = configuration.grammar
        let json = schema.jsonSchema
        let compiled: Grammar
        let compileStarted = ContinuousClock.now
        defer { metrics?.grammarCompile.observe(ContinuousClock.now - compileStarted) }
        do {
            compiled = try await WorkerThread.run(counting: workerThreads) { () throws -> Grammar in
                try Grammar(jsonSchema: json, options: options)
            }
        } catch let error as GrammarError {
            switch error.kind {
            case .unsupported, .syntax, .unresolvedReference, .limit:
                throw LanguageModelError.unsupportedGenerationGuide(.init(
                    schemaName: schema.name, debugDescription: "cannot enforce the schema exactly: \(error)"))
            }
        }
        grammars.withLock { $0.insert(compiled, for: key) }
        return compiled
    }
}
