import ChatTemplate
import Engine
import Foundation
import Grammar
import Provider

/// Generates for `MiniLocalModel`: renders the transcript with the model's chat template,
/// prefills it, and samples token by token, masking with a grammar when the request has a schema.
final class MiniLocalExecutor: LanguageModelExecutor {
    typealias Model = MiniLocalModel

    let model: Engine.Model
    let tokenizer: Tokenizer
    let template: ChatTemplate?
    /// The tokenizer's vocabulary as Grammar sees it (byte strings), built once per executor.
    let vocabulary: GrammarVocabulary
    let engines: EnginePool

    /// Loads the model (shared with anyone else who loaded the same file) and its tokenizer.
    /// Throwing here surfaces from the session's first request.
    init(configuration: MiniLocalModel) throws {
        let model = try ModelStore.shared.model(path: configuration.path)
        self.model = model
        tokenizer = try Tokenizer(gguf: model.file)
        template = try model.file.chatTemplate()
        let tokenizer = self.tokenizer
        vocabulary = GrammarVocabulary(
            tokens: (0..<tokenizer.vocabularySize).map { tokenizer.tokenBytes(Int32($0)) },
            endOfGeneration: tokenizer.endOfGenerationTokens.map(Int.init))
        engines = EnginePool {
            try SequentialEngine(model: model, configuration: TransformerConfiguration(
                threads: configuration.threads, contextLength: configuration.contextSize))
        }
    }

    func respond(to request: LanguageModelExecutorGenerationRequest, model: MiniLocalModel,
                 streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
        let prompt = try promptTokens(for: request)
        let engine = try engines.borrow()
        defer { engines.giveBack(engine) }

        // A schema becomes a grammar; its matcher yields the mask of tokens that keep the
        // output a valid prefix of some instance, and allows end-of-generation only once the
        // value is complete.
        let matcher: GrammarMatcher? = try request.schema.map { schema in
            GrammarMatcher(grammar: try Grammar(jsonSchema: schema.jsonSchema), vocabulary: vocabulary)
        }
        var mask = [UInt64](repeating: 0, count: vocabulary.maskWordCount)
        let sampler = try Sampler(vocabularySize: self.model.config.vocabularySize,
                                  parameters: Self.sampling(request.generationOptions))
        let limit = min(request.generationOptions.maximumResponseTokens ?? 512, engine.contextSize - prompt.count)
        guard limit > 0 else {
            throw LanguageModelError.contextSizeExceeded(.init(
                contextSize: engine.contextSize, tokenCount: prompt.count,
                debugDescription: "The prompt leaves no room for an answer."))
        }

        // Compute runs synchronously on this task's thread; a real executor would run it on a
        // thread of its own so the cooperative pool stays free (LocalLanguageModel does).
        let started = Date()
        let prefill = try engine.prefill(prompt)
        var logits = engine.logits
        var decoder = StreamingDecoder(tokenizer: tokenizer)
        let entryID = UUID().uuidString
        var generated = 0
        var firstTokenAt: Date?
        while generated < limit {
            try Task.checkCancellation()
            let next: Int32?
            if let matcher {
                matcher.mask(into: &mask)
                next = mask.withUnsafeBufferPointer { sampler.sample(logits, mask: $0.baseAddress) }
            } else {
                next = sampler.sample(logits)
            }
            guard let token = next, !tokenizer.isEndOfGeneration(token) else { break }
            if let matcher, !matcher.accept(token: Int(token)) { break }
            sampler.accept(token)
            generated += 1
            firstTokenAt = firstTokenAt ?? Date()
            let piece = try decoder.append(token)
            if !piece.isEmpty {
                await channel.send(.response(entryID: entryID, action: .appendText(piece, tokenCount: 1)))
            }
            if matcher?.isTerminated == true { break }
            logits = try engine.step(token)
        }
        let rest = decoder.finish()
        if !rest.isEmpty {
            await channel.send(.response(entryID: entryID, action: .appendText(rest, tokenCount: 0)))
        }

        // Usage totals and metadata go on the response entry, where callers find them.
        let decodeSeconds = firstTokenAt.map { Date().timeIntervalSince($0) } ?? 0
        let rate = generated > 1 && decodeSeconds > 0 ? Double(generated - 1) / decodeSeconds : 0
        await channel.send(.response(entryID: entryID, action: .updateMetadata([
            "tokensPerSecond": rate,
            "timeToFirstToken": firstTokenAt.map { $0.timeIntervalSince(started) } ?? 0,
        ])))
        await channel.send(.response(entryID: entryID, action: .updateUsage(
            input: .init(totalTokenCount: prompt.count, cachedTokenCount: prefill.cachedTokenCount),
            output: .init(totalTokenCount: generated))))
    }

    /// The transcript as the model's chat template renders it, tokenized with special tokens parsed.
    func promptTokens(for request: LanguageModelExecutorGenerationRequest) throws -> [Int32] {
        var messages: [JSONValue] = []
        func add(_ role: String, _ segments: [Transcript.Segment]) {
            let text = segments.compactMap { segment -> String? in
                switch segment {
                case .text(let t): return t.content
                case .structure(let s): return s.content.jsonString
                default: return nil
                }
            }.joined(separator: "\n")
            messages.append(.object(JSONObject([("role", .string(role)), ("content", .string(text))])))
        }
        for entry in request.transcript {
            switch entry {
            case .instructions(let e): add("system", e.segments)
            case .prompt(let e): add("user", e.segments)
            case .response(let e): add("assistant", e.segments)
            default: break  // no tools, no reasoning: nothing else can appear in this model's transcripts
            }
        }
        // Constrained decoding guarantees the shape; showing the schema helps the model fill it well.
        if let schema = request.schema, request.contextOptions.includeSchemaInPrompt != false {
            messages.append(.object(JSONObject([
                ("role", "system"), ("content", .string("Answer with JSON matching this schema: \(schema.jsonString)")),
            ])))
        }
        let text: String
        if let template {
            text = try template.render(messages: messages, addGenerationPrompt: true,
                                       bosToken: model.file.bosTokenText, eosToken: model.file.eosTokenText)
        } else {
            text = PlainChatFormat.render(messages: messages, addGenerationPrompt: true)
        }
        // Templates that write the BOS text themselves must not get a second one.
        let bos = model.file.bosTokenText
        let addBOS = tokenizer.addBOSByDefault && (bos.isEmpty || !text.hasPrefix(bos))
        return tokenizer.encode(text, addBOS: addBOS, parseSpecial: true)
    }

    /// Greedy unless the caller asks for sampling (`GenerationOptions` fields are nil by default).
    static func sampling(_ options: GenerationOptions) -> SamplingParameters {
        let temperature = Float(options.temperature ?? 0.7)
        switch options.samplingMode?.kind {
        case .randomTopK(let k, let seed)?:
            return SamplingParameters(temperature: temperature, topK: k, seed: seed ?? .random(in: 0...UInt64.max))
        case .randomProbabilityThreshold(let p, let seed)?:
            return SamplingParameters(temperature: temperature, topP: Float(p), seed: seed ?? .random(in: 0...UInt64.max))
        default:
            return options.temperature.map { SamplingParameters(temperature: Float($0)) } ?? .greedy
        }
    }
}
