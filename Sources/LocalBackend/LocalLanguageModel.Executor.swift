import ChatTemplate
import Engine
import Foundation
import Grammar
import LoomJSON
import LoomSupport
import Provider

extension LocalLanguageModel {
    /// Runs a `LocalLanguageModel`: holds the shared weights, the tokenizer, the chat template,
    /// the scheduler that decodes every request's sequence in shared forward passes over one KV
    /// pool, and compiled schemas — shared with every other executor of an equal configuration.
    ///
    /// Compute runs on dedicated threads, never on Swift's cooperative pool; cancelling the
    /// calling task stops it within one token.
    public final class Executor: LanguageModelExecutor {
        public typealias Model = LocalLanguageModel

        let runtime: LocalRuntime

        /// The configuration this executor was built from.
        public let configuration: Configuration

        /// Loads (or shares, through `ModelStore.shared`) the model's weights and validates the file.
        /// - Throws: `LocalLanguageModelError.modelLoadFailed` for an unreadable, malformed or
        ///   unsupported file; `.chatTemplateFailed` when its chat template does not parse;
        ///   `.invalidConfiguration` for a context size or thread count that cannot work.
        public init(configuration: Configuration) throws {
            runtime = try LocalRuntime.sharedBlocking(for: configuration)
            self.configuration = configuration
        }

        /// Loads (or shares) the model as `init(configuration:)` does, on a worker thread, and
        /// without blocking the calling task: concurrent loads of one configuration (several
        /// sessions starting at once) wait for a single load.
        public static func load(configuration: Configuration) async throws -> Executor {
            Executor(runtime: try await LocalRuntime.shared(for: configuration), configuration: configuration)
        }

        private init(runtime: LocalRuntime, configuration: Configuration) {
            self.runtime = runtime
            self.configuration = configuration
        }
        /// What this executor's model supports (the vocabulary and template are known here).
        public var capabilities: LanguageModelCapabilities { runtime.capabilities }
        /// Bytes of the KV block pool shared by every sequence of this configuration.
        public var kvCacheBytes: Int { runtime.scheduler.kvCacheBytes }
        /// Sequences the scheduler decodes together; more requests wait for admission.
        public var maxConcurrentSequences: Int { runtime.scheduler.policy.maxSequences }
        /// The scheduler's counters: steps, rows, admissions, preemptions, and the KV pool's
        /// blocks and prefix hits.
        public var schedulerStatistics: SchedulerStatistics { runtime.scheduler.statistics }

        var weights: Engine.Model { runtime.weights }
        var tokenizer: Tokenizer { runtime.tokenizer }
        var template: ChatTemplate? { runtime.template }
        var bosText: String { runtime.bosText }
        var eosText: String { runtime.eosText }
        var facts: LocalModelInspection.Facts { runtime.facts }
        var dialect: ToolCallDialect { runtime.dialect }
        var reasoning: ReasoningMarkers? { runtime.reasoning }
        var markerTokens: Set<Int32> { runtime.markerTokens }
        var vocabulary: GrammarVocabulary { runtime.vocabulary }
        var byteTokens: [Int32] { runtime.byteTokens }
        var pool: EnginePool { runtime.pool }
        var workerThreads: WorkerThread.Count { runtime.workerThreads }
        var modelID: String { runtime.modelID }

        func grammar(for schema: GenerationSchema) async throws -> Grammar {
            try await runtime.grammar(for: schema)
        }

        func toolGrammar(tools: [Transcript.ToolDefinition], mode: GenerationOptions.ToolCallingMode?,
                         response: Grammar?, schema: GenerationSchema?, thinking: Bool,
                         startsInReasoning: Bool) async throws -> Grammar {
            try await runtime.toolGrammar(tools: tools, mode: mode, response: response, schema: schema, thinking: thinking,
                                          startsInReasoning: startsInReasoning)
        }
    }
}
