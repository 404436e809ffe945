import Foundation
import LocalBackend
import Provider
import Testing

/// `tokenCount(for:)` on the real default model: every item counted alone with SmolLM2's
/// tokenizer and ChatML template, and the counts of a request's pieces adding up to the prompt
/// tokens the engine evaluates for it (the response usage's input total).
@Suite(.serialized, .timeLimit(.minutes(10))) struct TokenCountTests {
    static let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6)

    @Test func countsOfARequestsPiecesAddUpToTheEvaluatedPrompt() async throws {
        let session = LanguageModelSession(model: E2EData.smol(), instructions: "You are terse.")
        let instructions = try await session.tokenCount(for: Instructions("You are terse."))
        #expect(try await session.tokenCount(for: session.transcript) == instructions)
        #expect(instructions > 4)

        let prompt = "Name one prime number."
        let promptCount = try await session.tokenCount(for: prompt)
        let first = try await session.respond(to: prompt, options: Self.greedy)
        #expect(first.usage?.input.totalTokenCount == instructions + promptCount)

        // The next request re-renders the whole conversation: the transcript's count plus the
        // new prompt's.
        let history = try await session.tokenCount(for: session.transcript)
        #expect(history > instructions + promptCount)
        let next = "And another one."
        let nextCount = try await session.tokenCount(for: next)
        let second = try await session.respond(to: next, options: Self.greedy)
        #expect(second.usage?.input.totalTokenCount == history + nextCount)

        // A schema inlined into the prompt adds its own count.
        let schema = try GenerationSchema(jsonSchema: #"{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}"#)
        let schemaCount = try await session.tokenCount(for: schema)
        #expect(schemaCount > 10)
        let before = try await session.tokenCount(for: session.transcript)
        let third = "Give it as JSON."
        let thirdCount = try await session.tokenCount(for: third)
        let structured = try await session.respond(to: third, schema: schema, options: Self.greedy)
        #expect(structured.usage?.input.totalTokenCount == before + thirdCount + schemaCount)
    }

    @Test func toolsAddTheirDescriptionToEveryRequest() async throws {
        let session = LanguageModelSession(model: E2EData.smol(), tools: [GetWeather()], instructions: "You are terse.")
        let tools = try await session.tokenCount(for: [GetWeather()] as [any Tool])
        #expect(tools > 10)
        let transcript = try await session.tokenCount(for: session.transcript)
        let prompt = "Say hello."
        let promptCount = try await session.tokenCount(for: prompt)
        let response = try await session.respond(
            to: prompt, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6, toolCallingMode: .disallowed))
        #expect(response.usage?.input.totalTokenCount == transcript + tools + promptCount)
    }

    @Test func countsUseTheModelsOwnTokenizer() async throws {
        let smol = LanguageModelSession(model: E2EData.smol())
        let stories = LanguageModelSession(model: LocalLanguageModel(path: SharedData.stories, contextSize: 256))
        let text = "Once upon a time there was a little robot who loved the sea."
        let smolCount = try await smol.tokenCount(for: text)
        let storiesCount = try await stories.tokenCount(for: text)
        #expect(smolCount != storiesCount)
        #expect(smolCount > 10)
    }
}
