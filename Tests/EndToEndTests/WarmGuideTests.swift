import Grammar
@testable import LocalBackend
import LoomMetrics
import Provider
import Testing

/// Guided-decoding state kept between requests (`WarmGuides`): a schema's second request takes
/// the matcher its first one warmed and answers exactly as a cold one would; idle guides stay
/// within their byte budget, least recently returned evicted first.
@Suite(.serialized, .timeLimit(.minutes(10))) struct WarmGuideTests {
    static func request(_ schema: GenerationSchema) -> LanguageModelExecutorGenerationRequest {
        LanguageModelExecutorGenerationRequest(
            transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: "What is the weather in Paris?"))]))]),
            schema: schema, generationOptions: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40),
            contextOptions: ContextOptions(includeSchemaInPrompt: false))
    }

    @Test func aSchemaSeenBeforeStartsWarmAndAnswersAlike() async throws {
        var model = E2EData.smol()
        // A registry of its own gives this model a runtime (and warm store) of its own.
        model.metrics = MetricsRegistry()
        let executor = try await LocalLanguageModel.Executor.load(configuration: model.executorConfiguration)
        let warm = executor.runtime.warmGuides
        var texts: [String] = []
        for _ in 0..<2 {
            let log = EventLog()
            try await executor.respond(to: Self.request(E2EData.weatherSchema), model: model, streamingInto: log.channel)
            texts.append(log.texts.joined())
            // After each request its guide rests in the store, ready for the next.
            #expect(warm.statistics.guides == 1)
        }
        #expect(texts[0].hasPrefix("{\"city\":\""), "\(texts[0])")
        #expect(texts[1] == texts[0])
        let stats = warm.statistics
        #expect(stats.misses == 1)
        #expect(stats.hits == 1)
        // What it keeps is what the requests learned: more than a guide that has seen one mask.
        let grammar = try await executor.runtime.grammar(for: E2EData.weatherSchema)
        let fresh = GuidedDecoding(grammar: grammar, vocabulary: executor.vocabulary, tokenizer: executor.tokenizer,
                                   byteTokens: executor.byteTokens)
        fresh.computeMask()
        #expect(stats.bytes > fresh.retainedBytes)
    }

    @Test func idleGuidesStayWithinTheirBudget() async throws {
        let model = E2EData.smol()
        let executor = try await LocalLanguageModel.Executor.load(configuration: model.executorConfiguration)
        let grammar = try Grammar(jsonSchema: #"{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}"#)
        func warmed() -> GuidedDecoding {
            let g = GuidedDecoding(grammar: grammar, vocabulary: executor.vocabulary, tokenizer: executor.tokenizer,
                                   byteTokens: executor.byteTokens)
            g.computeMask()
            return g
        }
        let first = warmed(), second = warmed(), third = warmed()
        let each = first.retainedBytes
        #expect(second.retainedBytes == each && third.retainedBytes == each)
        let store = WarmGuides(budget: 2 * each + each / 2)
        store.giveBack(first)
        store.giveBack(second)
        #expect(store.statistics.guides == 2)
        store.giveBack(third)
        // Over budget: the least recently returned (first) went.
        #expect(store.statistics.guides == 2)
        #expect(store.statistics.bytes == 2 * each)
        var made = 0
        let a = store.take(for: grammar) { made += 1; return warmed() }
        let b = store.take(for: grammar) { made += 1; return warmed() }
        let c = store.take(for: grammar) { made += 1; return warmed() }
        #expect(a === third && b === second)
        #expect(c !== first && made == 1)
        #expect(store.statistics.hits == 2 && store.statistics.misses == 1)
        // A guide larger than the whole budget is not kept.
        let tiny = WarmGuides(budget: each - 1)
        tiny.giveBack(a)
        #expect(tiny.statistics.guides == 0)
    }
}
