import Foundation
import Testing
@testable import Provider

/// The seed's profile, written exactly as Apple's sample writes it (seed 003 §9.4).
struct ResearchProfile: DynamicProfile {
    var needsStructure: Bool
    var localModel: any LanguageModel
    var capableModel: any LanguageModel

    var body: some DynamicProfile {
        if needsStructure {
            Profile {
                Instructions { "Answer strictly in the requested schema." }
            }
            .model(capableModel)
        } else {
            Profile {
                Instructions { "Answer conversationally and briefly." }
            }
            .model(localModel)
        }
    }
}

/// A profile that only sets modes, leaving the model to the session.
struct ModesProfile: DynamicProfile {
    var body: some DynamicProfile {
        Profile()
            .toolCallingMode(.disallowed)
            .transcriptErrorHandlingPolicy(.preserveTranscript)
    }
}

@Suite(.timeLimit(.minutes(2))) struct DynamicProfileTests {
    @Test func `a profile resolves to its active branch and starts the transcript with its instructions`() async throws {
        let fast = MockLanguageModel(text: ["chatty"])
        let capable = MockLanguageModel(text: ["{}"])
        let session = LanguageModelSession(
            profile: ResearchProfile(needsStructure: false, localModel: fast, capableModel: capable), defaultModel: fast)
        #expect(text(of: try #require(session.transcript.first?.instructionsValue).segments) == "Answer conversationally and briefly.")
        _ = try await session.respond(to: "Hi")
        #expect(MockRegistry.get(fast.tag).requests.count == 1)
        #expect(MockRegistry.get(capable.tag).requests.isEmpty)
    }

    @Test func `switching the model keeps the transcript and sends all of it to the new model`() async throws {
        let fast = MockLanguageModel(text: ["first answer"])
        let capable = MockLanguageModel(text: ["second answer"])
        let session = LanguageModelSession(
            profile: ResearchProfile(needsStructure: false, localModel: fast, capableModel: capable), defaultModel: fast)
        _ = try await session.respond(to: "One")
        session.profile = ResearchProfile(needsStructure: true, localModel: fast, capableModel: capable)
        let second = try await session.respond(to: "Two")
        #expect(second.content == "second answer")
        let request = try #require(MockRegistry.get(capable.tag).requests.first)
        #expect(request.transcript.map(\.kindName) == ["instructions", "prompt", "response", "prompt"])
        #expect(text(of: try #require(request.transcript[0].instructionsValue).segments) == "Answer strictly in the requested schema.")
        #expect(text(of: try #require(request.transcript[2].responseValue).segments) == "first answer")
        #expect(session.transcript.map(\.kindName) == ["instructions", "prompt", "response", "prompt", "response"])
    }

    @Test func `profile modes apply unless the request or the session sets its own`() async throws {
        let model = MockLanguageModel(steps: [[.text("partial"), .fail(errorIndex: 8)]])
        let session = LanguageModelSession(profile: ModesProfile(), defaultModel: model, tools: [ClockTool()])
        await #expect(throws: LanguageModelError.self) { try await session.respond(to: "x") }
        let request = try #require(MockRegistry.get(model.tag).requests.first)
        #expect(request.generationOptions.toolCallingMode == .disallowed)
        // The profile's .preserveTranscript kept the partial response.
        #expect(session.transcript.map(\.kindName) == ["instructions", "prompt", "response"])

        session.transcriptErrorHandlingPolicy = .revertTranscript
        await #expect(throws: LanguageModelError.self) {
            try await session.respond(to: "y", options: GenerationOptions(toolCallingMode: .allowed))
        }
        #expect(MockRegistry.get(model.tag).requests.last?.generationOptions.toolCallingMode == .allowed)
        #expect(session.transcript.map(\.kindName) == ["instructions", "prompt", "response"])
    }

    @Test func `a history transform trims the history before each request and keeps the instructions`() async throws {
        struct LastTurn: DynamicProfile {
            var body: some DynamicProfile {
                Profile { "Be brief." }
                    .historyTransform { history in history.suffix(2) }
            }
        }
        let model = MockLanguageModel(text: ["ok"])
        let session = LanguageModelSession(profile: LastTurn(), defaultModel: model)
        for prompt in ["a", "b", "c"] { _ = try await session.respond(to: prompt) }
        let requests = MockRegistry.get(model.tag).requests
        #expect(requests.map { $0.transcript.map(\.kindName) } == [
            ["instructions", "prompt"],
            ["instructions", "prompt", "response", "prompt"],
            ["instructions", "prompt", "response", "prompt"],
        ])
        #expect(session.transcript.map(\.kindName) == ["instructions", "prompt", "response", "prompt", "response"])
        let prompts = session.transcript.compactMap { entry -> String? in
            if case .prompt(let p) = entry { return text(of: p.segments) }
            return nil
        }
        #expect(prompts == ["b", "c"])
    }
}

extension DynamicProfileTests {
    struct Condensing: DynamicProfile {
        var summarizer: MockLanguageModel
        var body: some DynamicProfile {
            Profile { "Be brief." }
                .summarizeHistory(whenTokenCountExceeds: 12, keepingLast: 2, using: summarizer)
        }
    }

    @Test func `summarizeHistory replaces old turns with a model-written summary past the token limit`() async throws {
        let model = MockLanguageModel(text: ["ok"])
        let summarizer = MockLanguageModel(text: ["they talked"])
        let session = LanguageModelSession(profile: Condensing(summarizer: summarizer), defaultModel: model)
        for prompt in ["first question", "second question", "third question"] { _ = try await session.respond(to: prompt) }

        // Turn two was over the limit too, but only the turn being kept existed then.
        let summaryRequests = MockRegistry.get(summarizer.tag).requests
        #expect(summaryRequests.count == 1)
        let summaryPrompt = try #require(summaryRequests.first?.transcript.last)
        #expect(summaryPrompt.description.contains("first question"))
        #expect(!summaryPrompt.description.contains("second question"))

        let third = try #require(MockRegistry.get(model.tag).requests.last)
        #expect(third.transcript.map(\.kindName) == ["instructions", "response", "prompt", "response", "prompt"])
        #expect(text(of: try #require(third.transcript[1].responseValue).segments) == "Summary of the conversation so far: they talked")
        #expect(session.transcript.count == 6)
    }
}

@Suite(.timeLimit(.minutes(2))) struct ParityGateTests {
    @Test func `a required tool call with no tools throws unsupportedGenerationGuide before the model runs`() async throws {
        let model = MockLanguageModel(text: ["never"])
        let session = LanguageModelSession(model: model)
        let error = await #expect(throws: LanguageModelError.self) {
            try await session.respond(to: "x", options: GenerationOptions(toolCallingMode: .required))
        }
        if case .unsupportedGenerationGuide(let payload)? = error {
            #expect(payload.schemaName == nil)
            #expect(payload.debugDescription.contains(".required"))
        } else {
            Issue.record("expected unsupportedGenerationGuide, got \(String(describing: error))")
        }
        #expect(MockRegistry.get(model.tag).requests.isEmpty)
        #expect(session.transcript.isEmpty)
    }

    @Test func `an executor without a tokenizer estimates token counts from text`() async throws {
        let session = LanguageModelSession(model: MockLanguageModel(text: ["ok"]))
        #expect(try await session.tokenCount(for: "12345678") == 2)
        #expect(try await session.tokenCount(for: Instructions("123456789")) == 3)
        #expect(try await session.tokenCount(for: [ClockTool()] as [any Tool]) > 0)
        #expect(try await session.tokenCount(for: session.transcript) == 0)
    }
}
