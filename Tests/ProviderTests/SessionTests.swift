import Foundation
import Testing
@testable import Provider

/// Layer 3: end to end through `LanguageModelSession` with the scripted mock.
@Suite(.timeLimit(.minutes(2))) struct SessionTests {
    @Test func `streamed text deltas assemble into a complete response`() async throws {
        let session = LanguageModelSession(model: MockLanguageModel(text: ["Hello", ", world!"]))
        let response = try await session.respond(to: "anything")
        #expect(response.content == "Hello, world!")
        #expect(response.rawContent.jsonString == "\"Hello, world!\"")
        #expect(response.transcriptEntries.map(\.kindName) == ["prompt", "response"])
        #expect(session.transcript.map(\.kindName) == ["prompt", "response"])
        #expect(session.isResponding == false)
    }

    @Test func `instructions open the transcript and reach the executor`() async throws {
        let model = MockLanguageModel(text: ["ok"])
        let session = LanguageModelSession(model: model, instructions: "Be concise.")
        _ = try await session.respond(to: "Hi")
        let request = try #require(MockRegistry.get(model.tag).requests.first)
        #expect(request.transcript.map(\.kindName) == ["instructions", "prompt"])
        let instructions = try #require(request.transcript[0].instructionsValue)
        #expect(text(of: instructions.segments) == "Be concise.")
        #expect(request.schema == nil)
        #expect(request.enabledToolDefinitions.isEmpty)
    }

    @Test func `request carries options and session metadata`() async throws {
        let model = MockLanguageModel(text: ["ok"])
        let session = LanguageModelSession(model: model)
        session.requestMetadata = ["trace": "abc"]
        session.reasoningLevel = .custom("no_think")
        let options = GenerationOptions(samplingMode: .random(top: 40, seed: 7), temperature: 0.5,
                                        maximumResponseTokens: 64)
        _ = try await session.respond(to: "Hi", options: options)
        let request = try #require(MockRegistry.get(model.tag).requests.first)
        #expect(request.generationOptions == options)
        #expect(request.contextOptions.reasoningLevel == .custom("no_think"))
        #expect(request.metadata["trace"] as? String == "abc")
        #expect(request.generationOptions.samplingMode?.kind == .randomTopK(40, seed: 7))
    }

    @Test func `reasoning text and a tool call interleaved yield one entry each`() async throws {
        let model = MockLanguageModel(steps: [
            [.reasoning("I should "), .toolCall(id: "c1", name: "clock", arguments: "{"), .reasoning("check the time."),
             .toolCall(id: "c1", name: "clock", arguments: "}")],
            [.reasoning("Now answer."), .text("It is "), .reasoning(" Done."), .text("noon.")],
        ])
        let session = LanguageModelSession(model: model, tools: [ClockTool()])
        let response = try await session.respond(to: "What time is it?")
        #expect(response.content == "It is noon.")
        #expect(session.transcript.map(\.kindName) ==
                ["instructions", "prompt", "reasoning", "toolCalls", "toolOutput", "reasoning", "response"])
        #expect(text(of: session.transcript[2].reasoningValue!.segments) == "I should check the time.")
        #expect(text(of: session.transcript[5].reasoningValue!.segments) == "Now answer. Done.")
        #expect(response.toolCalls.count == 1)
    }

    @Test(arguments: 0..<9)
    func `every LanguageModelError case surfaces unchanged`(index: Int) async throws {
        let arguments = index
        let model = MockLanguageModel(steps: [[.text("partial"), .fail(errorIndex: arguments)]])
        let session = LanguageModelSession(model: model)
        do {
            _ = try await session.respond(to: "x")
            Issue.record("expected an error")
        } catch let error as LanguageModelError {
            #expect(error.errorCode == arguments)
            #expect(error.errorCode == MockErrors.all[arguments].errorCode)
            if case .refusal(let refusal) = error {
                #expect(try await refusal.explanation.content == "I can't help with that.")
                var streamed: [String] = []
                for try await snapshot in refusal.explanationStream { streamed.append(snapshot.content) }
                #expect(streamed == ["I can't help with that."])
            }
            if case .contextSizeExceeded(let payload) = error {
                #expect(payload.contextSize == 4096 && payload.tokenCount == 5000)
            }
        }
        // Default policy reverts: the failed prompt and partial response are gone.
        #expect(session.transcript.isEmpty)
        #expect(session.isResponding == false)
    }

    @Test func `preserve policy keeps the partial entries of a failed request`() async throws {
        let model = MockLanguageModel(steps: [[.text("partial"), .fail(errorIndex: 8)]])
        let session = LanguageModelSession(model: model)
        session.transcriptErrorHandlingPolicy = .preserveTranscript
        await #expect(throws: LanguageModelError.self) { try await session.respond(to: "x") }
        #expect(session.transcript.map(\.kindName) == ["prompt", "response"])
        #expect(text(of: session.transcript[1].responseValue!.segments) == "partial")
    }

    @Test func `prewarm reaches the executor with the prompt prefix`() async throws {
        let model = MockLanguageModel(text: ["ok"])
        let session = LanguageModelSession(model: model, instructions: "Rules")
        session.prewarm(promptPrefix: Prompt("Summarise:"))
        // prewarm returns at once and works in the background; wait for it to land.
        await Gates.shared.wait(MockExecutor.prewarmedGate(model.tag))
        let stats = MockRegistry.get(model.tag)
        #expect(stats.prewarmed == 1)
        #expect(stats.prewarmTranscripts.first?.map(\.kindName) == ["instructions", "prompt"])
        _ = try await session.respond(to: "x")
        #expect(MockRegistry.get(model.tag).created == 1, "prewarm and respond share one executor")
    }

    @Test func `executors are cached per configuration and released with the session`() async throws {
        let tag = UUID().uuidString
        do {
            let session = LanguageModelSession(model: MockLanguageModel(text: ["a"], tag: tag))
            _ = try await session.respond(to: "1")
            _ = try await session.respond(to: "2")
            var stats = MockRegistry.get(tag)
            #expect(stats.created == 1)
            #expect(Set(stats.executorIDs).count == 1, "same configuration → same executor instance")

            // Equal configurations from a different model value share the executor.
            let twin = MockLanguageModel(text: ["a"], tag: tag)
            let twinExecutor = try await session.executors.executor(for: twin)
            #expect(try await session.executors.executor(for: twin) === twinExecutor)
            #expect(MockRegistry.get(tag).created == 1)

            // A different configuration gets its own executor in the same store.
            let other = MockLanguageModel(text: ["b"], tag: tag)
            let first = try await session.executors.executor(for: twin)
            let second = try await session.executors.executor(for: other)
            #expect(first !== second)
            stats = MockRegistry.get(tag)
            #expect(stats.created == 2)
            #expect(session.executors.count == 2)
            #expect(stats.released == 0)
        }
        #expect(MockRegistry.get(tag).released == 2, "executors are released with the session")
    }

    @Test func `a second concurrent request throws concurrentRequests`() async throws {
        let gate = UUID().uuidString
        let model = MockLanguageModel(steps: [[.signal(gate + "in"), .waitForGate(gate), .text("done")]])
        let session = LanguageModelSession(model: model)
        let first = Task { try await session.respond(to: "one") }
        await Gates.shared.wait(gate + "in")
        #expect(session.isResponding)
        await #expect(throws: LanguageModelSession.Error.concurrentRequests) { try await session.respond(to: "two") }
        await Gates.shared.signal(gate)
        #expect(try await first.value.content == "done")
        #expect(session.transcript.count == 2, "the rejected request left no trace")
    }

    @Test func `mutating the transcript while responding fails that request and keeps the edit`() async throws {
        let gate = UUID().uuidString
        let model = MockLanguageModel(steps: [[.signal(gate + "in"), .waitForGate(gate), .text("late")]])
        let session = LanguageModelSession(model: model)
        let pending = Task { try await session.respond(to: "one") }
        await Gates.shared.wait(gate + "in")
        session.transcript = Transcript(entries: [.prompt(Transcript.Prompt(segments: [.text(.init(content: "edited"))]))])
        await Gates.shared.signal(gate)
        await #expect(throws: LanguageModelSession.Error.transcriptMutationWhileResponding) { try await pending.value }
        #expect(session.transcript.count == 1)
        #expect(text(of: session.transcript[0].promptValue!.segments) == "edited")
    }

    @Test func `the transcript is mutable between requests and edits reach the executor`() async throws {
        let model = MockLanguageModel(text: ["ok"])
        let session = LanguageModelSession(model: model, instructions: "Rules")
        _ = try await session.respond(to: "first")
        _ = try await session.respond(to: "second")
        #expect(session.transcript.count == 5)
        // Keep the instructions and only the latest exchange.
        session.transcript.history = session.transcript.history.suffix(2)
        #expect(session.transcript.map(\.kindName) == ["instructions", "prompt", "response"])
        session.transcript.remove(at: 1)
        session.transcript.insert(.prompt(Transcript.Prompt(segments: [.text(.init(content: "context"))])), at: 1)
        _ = try await session.respond(to: "third")
        let last = try #require(MockRegistry.get(model.tag).requests.last)
        #expect(last.transcript.map(\.kindName) == ["instructions", "prompt", "response", "prompt"])
        #expect(text(of: last.transcript[1].promptValue!.segments) == "context")
    }

    @Test func `usage and metadata reach the response wholesale`() async throws {
        let model = MockLanguageModel(steps: [[
            .responseMetadata(["modelID": "m", "requestID": "r"]), .text("a"), .text("b"),
            .responseUsage(input: 7, output: 1), .responseUsage(input: 7, output: 2), .responseUsage(input: 7, output: 3),
            .responseMetadata(["modelID": "m"]),
        ]])
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(to: "x")
        #expect(response.usage?.output.totalTokenCount == 3)
        #expect(response.usage?.input.totalTokenCount == 7)
        let entry = try #require(session.transcript.last?.responseValue)
        #expect(Array(entry.metadata.keys) == ["modelID"])
    }

    @Test func `undeclared capabilities are refused before the executor runs`() async throws {
        struct Item: Decodable, Sendable { var name: String }
        func expectRefusal(_ capability: LanguageModelCapabilities.Capability, _ body: () async throws -> Void) async {
            do {
                try await body()
                Issue.record("expected unsupportedCapability(\(capability))")
            } catch LanguageModelError.unsupportedCapability(let payload) {
                #expect(payload.capability == capability)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        let bare = MockLanguageModel(capabilities: [], steps: [[.text("x")]])
        await expectRefusal(.toolCalling) {
            _ = try await LanguageModelSession(model: bare, tools: [ClockTool()]).respond(to: "x")
        }
        await expectRefusal(.guidedGeneration) {
            _ = try await LanguageModelSession(model: bare).respond(to: "x", generating: Item.self)
        }
        await expectRefusal(.reasoning) {
            let session = LanguageModelSession(model: bare)
            session.reasoningLevel = .deep
            _ = try await session.respond(to: "x")
        }
        await expectRefusal(.vision) {
            let image = Transcript.ImageAttachment(URL(fileURLWithPath: "/tmp/cat.png"))
            _ = try await LanguageModelSession(model: bare).respond { "Describe"; image }
        }
        #expect(MockRegistry.get(bare.tag).requests.isEmpty)
        // A declared capability passes the gate; the image reaches the executor as a segment.
        let vision = MockLanguageModel(capabilities: [.vision], steps: [[.text("a cat")]])
        let image = Transcript.ImageAttachment(URL(fileURLWithPath: "/tmp/cat.png"))
        let response = try await LanguageModelSession(model: vision).respond { "Describe"; image }
        #expect(response.content == "a cat")
        let segments = try #require(MockRegistry.get(vision.tag).requests.first?.transcript.last?.promptValue?.segments)
        try #require(segments.count == 2)
        #expect(segments[1].attachmentValue?.content == .image(image))
    }

    @Test func `restoring a transcript continues the conversation`() async throws {
        let first = LanguageModelSession(model: MockLanguageModel(text: ["one"]), instructions: "Rules")
        _ = try await first.respond(to: "a")
        let data = try JSONEncoder().encode(first.transcript)
        let restored = try JSONDecoder().decode(Transcript.self, from: data)
        #expect(restored == first.transcript)
        let model = MockLanguageModel(text: ["two"])
        let second = LanguageModelSession(model: model, transcript: restored)
        _ = try await second.respond(to: "b")
        #expect(MockRegistry.get(model.tag).requests.first?.transcript.count == 4)
    }
}

/// A tool with no arguments that returns a fixed time.
struct ClockTool: Tool {
    struct Arguments: Decodable, Generable {
        static var generationSchema: GenerationSchema {
            GenerationSchema(type: Arguments.self, properties: [])
        }
    }
    let name = "clock"
    let description = "Returns the current time."
    func call(arguments: Arguments) async throws -> String { "12:00" }
}
