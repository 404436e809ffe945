import Engine
import Foundation
import Grammar
import LoomJSON
import Synchronization

extension LocalLanguageModel {
    /// Runs a `LocalLanguageModel`: holds the shared weights, the tokenizer, the chat template, a
    /// pool of engines (one generation per engine at a time) and compiled schemas.
    ///
    /// Compute runs on dedicated threads, never on Swift's cooperative pool; cancelling the
    /// calling task stops it within one token.
    public final class Executor: LanguageModelExecutor {
        public typealias Model = LocalLanguageModel

        /// The configuration this executor was built from.
        public let configuration: Configuration
        let weights: Engine.Model
        let tokenizer: Tokenizer
        let template: ChatTemplate?
        let bosText: String
        let eosText: String
        let facts: LocalModelInspection.Facts
        let vocabulary: Vocabulary
        let byteTokens: [Int32]
        let pool: EnginePool
        let prefixCache: PrefixCache
        private let grammars = Mutex<[String: Grammar]>([:])

        /// Loads (or shares, through `ModelStore.shared`) the model's weights and validates the file.
        /// - Throws: `LocalLanguageModelError.modelLoadFailed` for an unreadable, malformed or
        ///   unsupported file; `.chatTemplateFailed` when its chat template does not parse;
        ///   `.invalidConfiguration` for a context size or thread count that cannot work.
        public init(configuration: Configuration) throws {
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
            let size = max(weights.config.vocabularySize, tokenizer.vocabularySize)
            var pieces: [[UInt8]] = []
            pieces.reserveCapacity(size)
            for id in 0..<size { pieces.append(tokenizer.tokenBytes(Int32(id))) }
            vocabulary = Vocabulary(tokens: pieces, endOfGeneration: tokenizer.endOfGenerationTokens.map(Int.init))
            byteTokens = GuidedDecoding.byteTokens(tokenizer: tokenizer, size: size)
            let cache = PrefixCache(byteBudget: 64 << 20)
            prefixCache = cache
            let transformer = TransformerConfiguration(threads: configuration.threads, contextLength: configuration.contextSize,
                                                       kvCacheType: configuration.kvCacheType)
            let model = weights
            let variant = configuration.variant
            pool = EnginePool { () throws -> PooledEngine in
                if variant == .sequential {
                    return PooledEngine(sequential: try SequentialEngine(model: model, configuration: transformer, prefixCache: cache))
                }
                return PooledEngine(pipelined: try PipelinedEngine(model: model, configuration: transformer, prefixCache: cache))
            }
        }

        /// What this executor's model supports (the vocabulary and template are known here).
        public var capabilities: LanguageModelCapabilities {
            LocalModelInspection.capabilities(facts: facts, variant: configuration.variant)
        }

        /// The model's name for metadata: the file name without its extension.
        var modelID: String {
            URL(fileURLWithPath: configuration.path).deletingPathExtension().lastPathComponent
        }

        /// The compiled grammar for `schema`, compiling it on a large-stack worker thread the first time.
        func grammar(for schema: GenerationSchema) async throws -> Grammar {
            let key = schema.jsonString
            if let known = grammars.withLock({ $0[key] }) { return known }
            let options = configuration.grammar
            let json = schema.jsonSchema
            let compiled: Grammar
            do {
                compiled = try await WorkerThread.run { () throws -> Grammar in
                    try Grammar(jsonSchema: json, options: options)
                }
            } catch let error as GrammarError {
                switch error.kind {
                case .unsupported, .syntax, .unresolvedReference, .limit:
                    throw LanguageModelError.unsupportedGenerationGuide(.init(
                        schemaName: schema.name, debugDescription: "cannot enforce the schema exactly: \(error)"))
                }
            }
            grammars.withLock { $0[key] = compiled }
            return compiled
        }
    }
}
