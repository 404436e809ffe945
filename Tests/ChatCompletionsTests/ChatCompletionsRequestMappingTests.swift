import Foundation
import HTTPServer
import LoomJSON
import Provider
import Testing
import ChatCompletions

private func text(_ s: String) -> Transcript.Segment { .text(Transcript.TextSegment(content: s)) }
private func image(_ url: String) -> Transcript.Segment {
    .attachment(Transcript.AttachmentSegment(content: .image(Transcript.ImageAttachment(URL(string: url)!))))
}
private func obj(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(JSONObject(pairs)) }

/// A transcript holding every entry kind.
private func fullTranscript(tool: Transcript.ToolDefinition) throws -> Transcript {
    Transcript(entries: [
        .instructions(Transcript.Instructions(segments: [text("You are terse.")], toolDefinitions: [tool])),
        .prompt(Transcript.Prompt(segments: [text("What is 2+2?")])),
        .reasoning(Transcript.Reasoning(segments: [text("Add them.")])),
        .response(Transcript.Response(segments: [text("4")])),
        .prompt(Transcript.Prompt(segments: [text("Look: "), image("https://example.com/cat.png")])),
        .toolCalls(Transcript.ToolCalls([Transcript.ToolCall(id: "call_9", toolName: "weather",
                                                             arguments: try GeneratedContent(json: "{\"city\":\"Oslo\"}"))])),
        .toolOutput(Transcript.ToolOutput(id: "call_9", toolName: "weather", segments: [text("Rain")])),
        .response(Transcript.Response(segments: [.structure(Transcript.StructuredSegment(source: "Report",
                                                                                        content: try GeneratedContent(json: "{\"rain\":true}")))])),
    ])
}

@Suite(.timeLimit(.minutes(2))) struct ChatCompletionsRequestMappingTests {
    /// Every request field, captured as the server received it.
    @Test func everyFieldReachesTheServer() async throws {
        let tool = CityWeatherTool()
        let definition = Transcript.ToolDefinition(tool: tool)
        try await withChatServer({ _, _ in stream([Chunk.content("ok"), Chunk.finish("stop")]) }) { server in
            let session = LanguageModelSession(model: server.model(), tools: [tool], transcript: try fullTranscript(tool: definition))
            session.reasoningLevel = .deep
            let options = GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: 7), temperature: 0.5,
                                            maximumResponseTokens: 64, toolCallingMode: .allowed)
            _ = try await session.respond(to: "Thanks", options: options)

            let request = try #require(server.captured.first)
            #expect(request.path == "/v1/chat/completions")
            #expect(request.headers["content-type"] == "application/json")
            #expect(request.headers["accept"] == "text/event-stream")
            #expect(UUID(uuidString: request.headers["x-request-id"] ?? "") != nil)
            let body = try #require(request.body.objectValue)
            #expect(Set(body.keys) == ["model", "messages", "temperature", "top_p", "seed", "max_completion_tokens", "tools",
                                       "tool_choice", "reasoning_effort", "stream", "stream_options"])
            #expect(body["model"] == .string("test-model"))
            #expect(body["temperature"] == .number(JSONNumber(0.5)))
            #expect(body["top_p"] == .number(JSONNumber(0.9)))
            #expect(body["seed"] == .number(JSONNumber(7)))
            #expect(body["max_completion_tokens"] == .number(JSONNumber(64)))
            #expect(body["tool_choice"] == .string("auto"))
            #expect(body["reasoning_effort"] == .string("high"))
            #expect(body["stream"] == .bool(true))
            #expect(body["stream_options"] == obj([("include_usage", true)]))
            #expect(body["tools"] == .array([obj([("type", "function"), ("function", obj([
                ("name", "weather"), ("description", "Current weather for a city."), ("parameters", definition.parameters.jsonSchema),
            ]))])]))
            let expected: [JSONValue] = [
                obj([("role", "system"), ("content", "You are terse.")]),
                obj([("role", "user"), ("content", "What is 2+2?")]),
                obj([("role", "assistant"), ("content", "4")]),  // reasoning omitted by default
                obj([("role", "user"), ("content", .array([
                    obj([("type", "text"), ("text", "Look: ")]),
                    obj([("type", "image_url"), ("image_url", obj([("url", "https://example.com/cat.png")]))]),
                ]))]),
                obj([("role", "assistant"), ("content", .null), ("tool_calls", .array([obj([
                    ("id", "call_9"), ("type", "function"), ("function", obj([("name", "weather"), ("arguments", "{\"city\":\"Oslo\"}")])),
                ])]))]),
                obj([("role", "tool"), ("tool_call_id", "call_9"), ("content", "Rain")]),
                obj([("role", "assistant"), ("content", "{\"rain\":true}")]),
                obj([("role", "user"), ("content", "Thanks")]),
            ]
            #expect(body["messages"] == .array(expected))
        }
    }

    private func request(_ transcript: Transcript = Transcript(entries: [.prompt(Transcript.Prompt(segments: [text("hi")]))]),
                         tools: [Transcript.ToolDefinition] = [], schema: GenerationSchema? = nil,
                         options: GenerationOptions = GenerationOptions(), context: ContextOptions = ContextOptions()) -> LanguageModelExecutorGenerationRequest {
        LanguageModelExecutorGenerationRequest(transcript: transcript, enabledTools: tools, schema: schema,
                                               generationOptions: options, contextOptions: context)
    }

    @Test func reasoningHistoryIsSentAsReasoningContentWhenConfigured() throws {
        var builder = ChatCompletionsRequestBuilder(modelName: "m")
        builder.reasoningHistory = .reasoningContent
        let transcript = Transcript(entries: [
            .prompt(Transcript.Prompt(segments: [text("q")])),
            .reasoning(Transcript.Reasoning(segments: [text("thinking")])),
            .response(Transcript.Response(segments: [text("a")])),
            .prompt(Transcript.Prompt(segments: [text("q2")])),
            .reasoning(Transcript.Reasoning(segments: [text("trailing")])),
        ])
        let messages = try builder.body(for: request(transcript))["messages"]
        #expect(messages == .array([
            obj([("role", "user"), ("content", "q")]),
            obj([("role", "assistant"), ("content", "a"), ("reasoning_content", "thinking")]),
            obj([("role", "user"), ("content", "q2")]),
            obj([("role", "assistant"), ("content", ""), ("reasoning_content", "trailing")]),
        ]))
    }

    @Test func samplingModesMapOrRefuse() throws {
        let builder = ChatCompletionsRequestBuilder(modelName: "m")
        let greedy = try builder.body(for: request(options: GenerationOptions(samplingMode: .greedy)))
        #expect(greedy["temperature"] == .number(JSONNumber(0)))
        #expect(greedy["top_p"] == nil)
        #expect(throws: ChatCompletionsError.self) {
            try builder.body(for: request(options: GenerationOptions(samplingMode: .greedy, temperature: 0.7)))
        }
        let topK = try builder.body(for: request(options: GenerationOptions(samplingMode: .random(top: 40, seed: 3))))
        #expect(topK["top_k"] == .number(JSONNumber(40)))
        #expect(topK["seed"] == .number(JSONNumber(3)))

        var renamed = builder
        renamed.extensionFields = .init(topK: "k", seed: "random_seed")
        let r = try renamed.body(for: request(options: GenerationOptions(samplingMode: .random(top: 5, seed: 9))))
        #expect(r["k"] == .number(JSONNumber(5)) && r["random_seed"] == .number(JSONNumber(9)) && r["top_k"] == nil)

        var disabled = builder
        disabled.extensionFields = .init(topK: nil, seed: nil)
        #expect(throws: ChatCompletionsError.self) {
            try disabled.body(for: request(options: GenerationOptions(samplingMode: .random(top: 5))))
        }
        #expect(throws: ChatCompletionsError.self) {
            try disabled.body(for: request(options: GenerationOptions(samplingMode: .random(probabilityThreshold: 0.5, seed: 1))))
        }
        #expect(try disabled.body(for: request(options: GenerationOptions(samplingMode: .random(probabilityThreshold: 0.5))))["top_p"]
                == .number(JSONNumber(0.5)))
        #expect(throws: ChatCompletionsError.self) {
            try builder.body(for: request(options: GenerationOptions(temperature: .nan)))
        }
        let none = try builder.body(for: request())
        #expect(none["temperature"] == nil && none["top_p"] == nil && none["seed"] == nil && none["tools"] == nil && none["tool_choice"] == nil)
    }

    @Test func maximumTokensFieldIsConfigurable() throws {
        var builder = ChatCompletionsRequestBuilder(modelName: "m")
        builder.maximumTokensField = .maxTokens
        let body = try builder.body(for: request(options: GenerationOptions(maximumResponseTokens: 10)))
        #expect(body["max_tokens"] == .number(JSONNumber(10)) && body["max_completion_tokens"] == nil)
        #expect(throws: ChatCompletionsError.self) { try builder.body(for: request(options: GenerationOptions(maximumResponseTokens: 0))) }
    }

    @Test func toolChoiceFollowsTheToolCallingMode() throws {
        let builder = ChatCompletionsRequestBuilder(modelName: "m")
        let tools = [Transcript.ToolDefinition(tool: CityWeatherTool())]
        for (mode, wire) in [(GenerationOptions.ToolCallingMode.allowed, "auto"), (.required, "required"), (.disallowed, "none")] {
            let body = try builder.body(for: request(tools: tools, options: GenerationOptions(toolCallingMode: mode)))
            #expect(body["tool_choice"] == .string(wire))
        }
        #expect(throws: ChatCompletionsError.self) {
            try builder.body(for: request(options: GenerationOptions(toolCallingMode: .required)))
        }
    }

    @Test func schemaInPromptIsAppendedToTheSystemMessage() throws {
        let schema = try GenerationSchema(jsonSchema: "{\"title\":\"My Schema!\",\"type\":\"object\"}")
        let builder = ChatCompletionsRequestBuilder(modelName: "m")
        let transcript = Transcript(entries: [
            .instructions(Transcript.Instructions(segments: [text("Be nice.")], toolDefinitions: [])),
            .prompt(Transcript.Prompt(segments: [text("hi")])),
        ])
        let body = try builder.body(for: request(transcript, schema: schema, context: ContextOptions(includeSchemaInPrompt: true)))
        let system = body["messages"]?.arrayValue?.first?["content"]?.stringValue ?? ""
        #expect(system.hasPrefix("Be nice.\n\n"))
        #expect(system.contains(schema.jsonString))
        #expect(body["response_format"]?["json_schema"]?["name"] == .string("My_Schema_"))
        let without = try builder.body(for: request(transcript, schema: schema, context: ContextOptions(includeSchemaInPrompt: false)))
        #expect(without["messages"]?.arrayValue?.first?["content"] == .string("Be nice."))
    }

    @Test func imagesAreForwardedOrRefused() throws {
        let builder = ChatCompletionsRequestBuilder(modelName: "m")
        func prompt(_ segment: Transcript.Segment) -> Transcript { Transcript(entries: [.prompt(Transcript.Prompt(segments: [segment]))]) }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loom-cc-\(UUID().uuidString).png")
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try builder.body(for: request(prompt(image(file.absoluteString))))
        #expect(fromFile["messages"]?.arrayValue?.first?["content"]?.arrayValue?.first?["image_url"]?["url"]
                == .string("data:image/png;base64,iVBORw=="))
        let dataURL = "data:image/png;base64,AAAA"
        #expect(try builder.body(for: request(prompt(image(dataURL))))["messages"]?.arrayValue?.first?["content"]?.arrayValue?.first?["image_url"]?["url"]
                == .string(dataURL))

        #expect(throws: LanguageModelError.self) { try builder.body(for: request(prompt(image("ftp://example.com/a.png")))) }
        #expect(throws: LanguageModelError.self) { try builder.body(for: request(prompt(image("file:///nonexistent/loom.png")))) }
        #expect(throws: LanguageModelError.self) { try builder.body(for: request(prompt(image("file:///etc/hostname")))) }
        let imageInResponse = Transcript(entries: [
            .prompt(Transcript.Prompt(segments: [text("draw")])),
            .response(Transcript.Response(segments: [image("https://example.com/x.png")])),
        ])
        do {
            _ = try builder.body(for: request(imageInResponse))
            Issue.record("an image in a response entry was not refused")
        } catch let LanguageModelError.unsupportedTranscriptContent(payload) {
            #expect(payload.unsupportedContent.count == 1)
        }
    }
}
