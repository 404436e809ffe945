// POST /v1/chat/completions over real loopback HTTP: plain and streamed answers, tool calls,
// structured output reaching the executor, usage.
import ChatCompletionsServer
import Foundation
import HTTPServer
import LoomJSON
import Provider
import Testing

@Suite(.timeLimit(.minutes(2))) struct ChatCompletionsEndpointTests {
    @Test func nonStreamingCompletionCarriesTextUsageAndIds() async throws {
        let served = try await ServedModel.start(script: [
            .text("Hello"), .text(", world"), .usage(input: 12, cached: 4, output: 2),
        ])
        let response = try await served.chat(chatBody(messages: [
            ["role": "system", "content": "Be brief."],
            ["role": "user", "content": "Greet me"],
        ]))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        let json = try #require(response.json)
        #expect(json["object"] == "chat.completion")
        #expect(json["model"] == .string(ServedModel.modelID))
        #expect(json["id"]?.stringValue?.hasPrefix("chatcmpl-") == true)
        let choice = try #require(json["choices"]?.arrayValue?.first)
        #expect(choice["message"]?["role"] == "assistant")
        #expect(choice["message"]?["content"] == "Hello, world")
        #expect(choice["message"]?["tool_calls"] == nil)
        #expect(choice["finish_reason"] == "stop")
        #expect(json["usage"]?["prompt_tokens"] == 12)
        #expect(json["usage"]?["completion_tokens"] == 2)
        #expect(json["usage"]?["total_tokens"] == 14)
        #expect(json["usage"]?["prompt_tokens_details"]?["cached_tokens"] == 4)

        // The executor saw the conversation as a transcript: instructions, then the prompt.
        let request = try #require(served.requests.first)
        try #require(request.transcript.count == 2)
        let instructions = try #require(request.transcript[0].instructionsValue)
        let prompt = try #require(request.transcript[1].promptValue)
        #expect(Instructions(segments: instructions.segments).text == "Be brief.")
        #expect(Prompt(segments: prompt.segments).text == "Greet me")
        #expect(request.enabledToolDefinitions.isEmpty)
        #expect(request.schema == nil)
        await served.stop()
    }

    @Test func streamingSendsEachDeltaBeforeTheModelContinues() async throws {
        let tag = UUID().uuidString
        let served = try await ServedModel.start(ScriptedLanguageModel(tag: tag, script: [
            .text("Hel"), .waitFor("\(tag).client-saw-first"), .text("lo"), .usage(input: 7, cached: 0, output: 2),
        ]))
        let client = try served.client()
        try await client.send("POST", "/v1/chat/completions", json: chatBody("Say hello", [
            ("stream", true), ("stream_options", ["include_usage": true]),
        ]))
        let head = try await client.readHead()
        #expect(head.status == 200)
        #expect(head.headers.contains { $0.0 == "Content-Type" && $0.1.hasPrefix("text/event-stream") })

        let role = try await client.nextJSONEvent()
        #expect(role["object"] == "chat.completion.chunk")
        #expect(role["choices"]?[0]?["delta"]?["role"] == "assistant")
        let first = try await client.nextJSONEvent()
        #expect(first["choices"]?[0]?["delta"]?["content"] == "Hel")
        #expect(first["usage"]?.isNull == true)
        // The model is parked until the client has surfaced the first delta: the rest of the
        // answer cannot have been sent yet, so what arrived was streamed, not buffered.
        #expect(!TestGates.shared.isOpen("\(tag).client-saw-first"))
        TestGates.shared.open("\(tag).client-saw-first")

        let second = try await client.nextJSONEvent()
        #expect(second["choices"]?[0]?["delta"]?["content"] == "lo")
        #expect(second["id"] == role["id"])
        let finish = try await client.nextJSONEvent()
        #expect(finish["choices"]?[0]?["finish_reason"] == "stop")
        let usage = try await client.nextJSONEvent()
        #expect(usage["choices"] == .array([]))
        #expect(usage["usage"]?["prompt_tokens"] == 7)
        #expect(usage["usage"]?["completion_tokens"] == 2)
        #expect(try await client.nextEvent() == "[DONE]")
        #expect(try await client.nextEvent() == nil)
        await served.stop()
    }

    @Test func streamingWithoutIncludeUsageHasNoUsageChunk() async throws {
        let served = try await ServedModel.start(script: [.text("ok")])
        let client = try served.client()
        try await client.send("POST", "/v1/chat/completions", json: chatBody("x", [("stream", true)]))
        #expect(try await client.readHead().status == 200)
        let events = try await client.remainingEvents()
        #expect(events.last == "[DONE]")
        let chunks = try events.dropLast().map { try JSONValue(parsing: $0) }
        #expect(chunks.count == 3)  // role, content, finish
        #expect(chunks.allSatisfy { $0["usage"] == nil })
        #expect(chunks[1]["choices"]?[0]?["delta"]?["content"] == "ok")
        await served.stop()
    }

    static let weatherTool: JSONValue = [
        "type": "function",
        "function": [
            "name": "get_weather", "description": "Current weather for a city",
            "parameters": ["type": "object", "properties": ["city": ["type": "string"]], "required": ["city"]],
        ],
    ]
    static let timeTool: JSONValue = [
        "type": "function", "function": ["name": "get_time", "parameters": ["type": "object", "properties": [:]]],
    ]

    @Test func toolCallsAreReturnedToTheClientNotRun() async throws {
        let served = try await ServedModel.start(script: [
            .toolCall(id: "call_1", name: "get_weather", arguments: "{\"city\":"),
            .toolCall(id: "call_1", name: "get_weather", arguments: "\"Paris\"}"),
            .toolCall(id: "call_2", name: "get_time", arguments: "{}"),
        ])
        let response = try await served.chat(chatBody("Weather and time in Paris?", [
            ("tools", [Self.weatherTool, Self.timeTool]), ("tool_choice", "auto"),
        ]))
        #expect(response.status == 200)
        let choice = try #require(response.json?["choices"]?[0])
        #expect(choice["finish_reason"] == "tool_calls")
        #expect(choice["message"]?["content"]?.isNull == true)
        let calls = try #require(choice["message"]?["tool_calls"]?.arrayValue)
        #expect(calls.count == 2)
        #expect(calls[0]["id"] == "call_1")
        #expect(calls[0]["type"] == "function")
        #expect(calls[0]["function"]?["name"] == "get_weather")
        #expect(calls[0]["function"]?["arguments"] == "{\"city\":\"Paris\"}")
        #expect(calls[1]["function"]?["name"] == "get_time")

        let request = try #require(served.requests.first)
        #expect(request.enabledToolDefinitions.map(\.name) == ["get_weather", "get_time"])
        #expect(request.enabledToolDefinitions[0].parameters.jsonSchema == Self.weatherTool["function"]?["parameters"])
        #expect(request.enabledToolDefinitions[0].description == "Current weather for a city")
        #expect(request.generationOptions.toolCallingMode == .allowed)
        // Tools are declared in an instructions entry.
        let instructions = try #require(request.transcript.first?.instructionsValue)
        #expect(instructions.toolDefinitions.map(\.name) == ["get_weather", "get_time"])
        await served.stop()
    }

    @Test func streamedToolCallsAreRoutedByIndex() async throws {
        let served = try await ServedModel.start(script: [
            .text("Checking."),
            .toolCall(id: "call_a", name: "get_weather", arguments: "{\"city\":"),
            .toolCall(id: "call_b", name: "get_time", arguments: "{"),
            .toolCall(id: "call_a", name: "get_weather", arguments: "\"Oslo\"}"),
            .toolCall(id: "call_b", name: "get_time", arguments: "}"),
        ])
        let client = try served.client()
        try await client.send("POST", "/v1/chat/completions", json: chatBody("?", [
            ("stream", true), ("tools", [Self.weatherTool, Self.timeTool]),
        ]))
        #expect(try await client.readHead().status == 200)
        let events = try await client.remainingEvents()
        #expect(events.last == "[DONE]")
        let deltas = try events.dropLast().map { try JSONValue(parsing: $0)["choices"]?[0] }
        var arguments: [Int: String] = [:]
        var names: [Int: String] = [:]
        var ids: [Int: String] = [:]
        var content = ""
        for delta in deltas {
            if let text = delta?["delta"]?["content"]?.stringValue { content += text }
            for call in delta?["delta"]?["tool_calls"]?.arrayValue ?? [] {
                let index = try #require(call["index"]?.intValue)
                if let id = call["id"]?.stringValue { #expect(ids[index] == nil); ids[index] = id }
                if let name = call["function"]?["name"]?.stringValue { names[index] = name }
                arguments[index, default: ""] += call["function"]?["arguments"]?.stringValue ?? ""
            }
        }
        #expect(content == "Checking.")
        #expect(ids == [0: "call_a", 1: "call_b"])
        #expect(names == [0: "get_weather", 1: "get_time"])
        #expect(arguments == [0: "{\"city\":\"Oslo\"}", 1: "{}"])
        #expect(deltas.last??["finish_reason"] == "tool_calls")
        await served.stop()
    }

    @Test func namedToolChoiceOffersOnlyThatToolAndRequiresACall() async throws {
        let served = try await ServedModel.start(script: [.toolCall(id: "c", name: "get_time", arguments: "{}")])
        let response = try await served.chat(chatBody("time?", [
            ("tools", [Self.weatherTool, Self.timeTool]),
            ("tool_choice", ["type": "function", "function": ["name": "get_time"]]),
        ]))
        #expect(response.status == 200)
        let request = try #require(served.requests.first)
        #expect(request.enabledToolDefinitions.map(\.name) == ["get_time"])
        #expect(request.generationOptions.toolCallingMode == .required)
        await served.stop()
    }

    @Test func toolResultsContinueTheConversation() async throws {
        let served = try await ServedModel.start(script: [.text("It is sunny in Paris.")])
        let response = try await served.chat(chatBody(messages: [
            ["role": "user", "content": "Weather in Paris?"],
            ["role": "assistant", "content": .null, "tool_calls": [[
                "id": "call_9", "type": "function", "function": ["name": "get_weather", "arguments": "{\"city\":\"Paris\"}"],
            ]]],
            ["role": "tool", "tool_call_id": "call_9", "content": "sunny, 24 C"],
        ], [("tools", [Self.weatherTool])]))
        #expect(response.status == 200)
        #expect(response.json?["choices"]?[0]?["message"]?["content"] == "It is sunny in Paris.")
        let transcript = try #require(served.requests.first?.transcript)
        try #require(transcript.count == 4)
        let calls = try #require(transcript[2].toolCallsValue)
        let output = try #require(transcript[3].toolOutputValue)
        #expect(calls.calls.first?.id == "call_9")
        #expect(calls.calls.first?.toolName == "get_weather")
        #expect(calls.calls.first?.arguments.jsonValue == ["city": "Paris"])
        #expect(output.id == "call_9")
        #expect(output.toolName == "get_weather")
        #expect(Prompt(segments: output.segments).text == "sunny, 24 C")
        await served.stop()
    }

    @Test func jsonSchemaResponseFormatReachesTheExecutorAsItsSchema() async throws {
        let schema: JSONValue = [
            "type": "object",
            "properties": ["name": ["type": "string"], "age": ["type": "integer", "minimum": 0]],
            "required": ["name", "age"], "additionalProperties": false,
        ]
        let served = try await ServedModel.start(script: [.text("{\"name\":\"Ada\",\"age\":36}")])
        let response = try await served.chat(chatBody("Who?", [
            ("response_format", ["type": "json_schema", "json_schema": ["name": "person", "schema": schema, "strict": true]]),
        ]))
        #expect(response.status == 200)
        #expect(response.json?["choices"]?[0]?["message"]?["content"] == "{\"name\":\"Ada\",\"age\":36}")
        let request = try #require(served.requests.first)
        #expect(request.schema?.jsonSchema == schema)
        #expect(request.contextOptions.includeSchemaInPrompt == true)
        let prompt = try #require(request.transcript.last?.promptValue)
        #expect(prompt.responseFormat == Transcript.ResponseFormat(schema: try GenerationSchema(jsonSchema: schema)))
        await served.stop()
    }

    @Test func jsonObjectResponseFormatIsAnyObjectSchema() async throws {
        let served = try await ServedModel.start(script: [.text("{}")])
        let response = try await served.chat(chatBody("x", [("response_format", ["type": "json_object"])]))
        #expect(response.status == 200)
        #expect(served.requests.first?.schema?.jsonSchema == ["type": "object"])
        await served.stop()
    }

    @Test func samplingOptionsReachTheExecutor() async throws {
        let served = try await ServedModel.start(script: [.text("a")])
        #expect(try await served.chat(chatBody("x", [
            ("temperature", 0.7), ("top_k", 40), ("seed", 42), ("max_completion_tokens", 64), ("user", "u-1"),
        ])).status == 200)
        #expect(try await served.chat(chatBody("x", [("temperature", 0), ("top_p", 0.5)])).status == 200)
        #expect(try await served.chat(chatBody("x", [("top_p", 0.9), ("seed", -1), ("max_tokens", 5)])).status == 200)
        let options = served.requests.map(\.generationOptions)
        #expect(options.count == 3)
        #expect(options[0].temperature == 0.7)
        #expect(options[0].samplingMode == .random(top: 40, seed: 42))
        #expect(options[0].maximumResponseTokens == 64)
        #expect(served.requests[0].metadata["user"] as? String == "u-1")
        #expect(options[1].samplingMode == .greedy)
        #expect(options[2].samplingMode == .random(probabilityThreshold: 0.9, seed: UInt64.max))
        #expect(options[2].maximumResponseTokens == 5)
        await served.stop()
    }

    @Test func finishReasonIsLengthAtTheTokenLimit() async throws {
        let served = try await ServedModel.start(script: [.text("one"), .text(" two")])
        let response = try await served.chat(chatBody("count", [("max_tokens", 2)]))
        #expect(response.json?["choices"]?[0]?["finish_reason"] == "length")
        await served.stop()
    }

    @Test func reasoningIsReportedAsReasoningContent() async throws {
        let served = try await ServedModel.start(script: [.reasoning("think"), .text("answer")])
        let response = try await served.chat(chatBody("q"))
        #expect(response.json?["choices"]?[0]?["message"]?["reasoning_content"] == "think")
        #expect(response.json?["choices"]?[0]?["message"]?["content"] == "answer")
        await served.stop()
    }

    @Test func refusalIsTheModelsAnswer() async throws {
        let served = try await ServedModel.start(script: [.fail(.refusal("I can't help with that."))])
        let response = try await served.chat(chatBody("q"))
        #expect(response.status == 200)
        #expect(response.json?["choices"]?[0]?["message"]?["refusal"] == "I can't help with that.")
        #expect(response.json?["choices"]?[0]?["message"]?["content"]?.isNull == true)
        // Streamed, the refusal is a `refusal` delta followed by a normal end.
        let client = try served.client()
        try await client.send("POST", "/v1/chat/completions", json: chatBody("q", [("stream", true)]))
        #expect(try await client.readHead().status == 200)
        let events = try await client.remainingEvents()
        #expect(events.last == "[DONE]")
        let chunks = try events.dropLast().map { try JSONValue(parsing: $0)["choices"]?[0] }
        #expect(chunks.contains { $0?["delta"]?["refusal"] == "I can't help with that." })
        #expect(chunks.last??["finish_reason"] == "stop")
        await served.stop()
    }
}
