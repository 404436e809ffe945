import Foundation
import Testing
import Engine
import Grammar
import LoomJSON
@testable import LocalBackend
@testable import Provider

/// SmolLM2 (no tool support in its template) decoding greedily under the call grammar (one call
/// per reply): every token is inside its mask, the reply is one well-formed call with valid
/// arguments, and the grammar ends generation right after it.
@Suite(.serialized, .timeLimit(.minutes(30))) struct ToolCallingLiveTests {
    @Test func smolLM2MakesAWellFormedRequiredCall() throws {
        let file = try GGUFFile(path: SharedData.defaultModel)
        let tokenizer = try Tokenizer(gguf: file)
        let template = try #require(try file.chatTemplate())
        let support = ModelToolSupport(template: template, tokenizer: tokenizer)
        let tools = [Transcript.ToolDefinition(name: "getWeather", description: "Current weather in a city.",
                                               parameters: E2EData.weatherSchema)]
        let messages = support.dialect.injectingTools(tools, into: [["role": "user", "content": "What is the weather in Paris?"]])
        let prompt = try template.render(messages: messages, tools: support.dialect.templateTools(tools), addGenerationPrompt: true,
                                         bosToken: file.bosTokenText, eosToken: file.eosTokenText)
        let grammar = try #require(try support.grammar(tools: tools, mode: .required, response: nil, thinking: false,
                                                            renderedPrompt: prompt, maximumCalls: 1))
        let vocab = GrammarVocabulary(tokens: support.grammarTokenBytes(of: tokenizer), endOfGeneration: tokenizer.endOfGenerationTokens.map(Int.init))
        let matcher = GrammarMatcher(grammar: grammar, vocabulary: vocab)
        let model = try ModelStore.shared.model(path: SharedData.defaultModel)
        let engine = try SequentialEngine(model: model, configuration: TransformerConfiguration(contextLength: 1024))
        let sampler = try Sampler(vocabularySize: vocab.size, parameters: .greedy)
        try engine.prefill(tokenizer.encode(prompt, parseSpecial: true))
        var logits = engine.logits
        var mask = [UInt64](repeating: 0, count: vocab.maskWordCount)
        var parser = support.makeParser(toolsEnabled: true, hasResponseSchema: false, thinking: false, renderedPrompt: prompt)
        var events: [ToolCallStreamEvent] = []
        for _ in 0..<64 {
            matcher.mask(into: &mask)
            let t = try #require(mask.withUnsafeBufferPointer { sampler.sample(logits, mask: $0.baseAddress!) })
            #expect(mask[Int(t) >> 6] >> UInt64(Int(t) & 63) & 1 == 1)
            #expect(matcher.accept(token: Int(t)))
            if vocab.isEndOfGeneration(Int(t)) { break }
            events += try parser.consume(bytes: vocab.bytes(of: Int(t)))
            logits = try engine.step(t)
        }
        events += try parser.finish()
        #expect(matcher.isTerminated)
        let calls = events.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
        #expect(calls.count == 1)
        #expect(!events.contains { if case .text = $0 { return true } else { return false } })
        let call = try #require(calls.first, "no call: \(events)")
        #expect(call.toolName == "getWeather")
        #expect(call.arguments.jsonValue["city"]?.stringValue?.isEmpty == false)
    }
}
