// Request bodies → transcript, options, tools and schema, without a server: what is mapped,
// and what is refused (never silently dropped).
import ChatCompletionsServer
import Foundation
import LoomJSON
import Provider
import Testing

@Suite struct ChatCompletionsRequestMappingTests {
    func parse(_ body: JSONValue) throws(ChatCompletionsServiceError) -> ChatCompletionsRequest {
        try ChatCompletionsRequest(body: Array(body.serialized().utf8))
    }

    func refusal(_ body: JSONValue) -> ChatCompletionsServiceError? {
        do {
            _ = try parse(body)
            return nil
        } catch {
            return error
        }
    }

    @Test func systemAndDeveloperMessagesBecomeOneInstructionsEntry() throws {
        let request = try parse(chatBody(messages: [
            ["role": "system", "content": "Rule one."],
            ["role": "developer", "content": [["type": "text", "text": "Rule "], ["type": "text", "text": "two."]]],
            ["role": "user", "content": "Go"],
        ]))
        #expect(request.transcript.count == 2)
        let instructions = try #require(request.transcript[0].instructionsValue)
        #expect(Instructions(segments: instructions.segments).text == "Rule one.\nRule two.")
        #expect(instructions.toolDefinitions.isEmpty)
    }

    @Test func systemMessageAfterTheConversationStartedIsRefused() {
        let error = refusal(chatBody(messages: [
            ["role": "user", "content": "a"], ["role": "system", "content": "late"], ["role": "user", "content": "b"],
        ]))
        #expect(error?.status == 400)
        #expect(error?.param == "messages[1].role")
    }

    @Test func userImagePartsBecomeAttachments() throws {
        let request = try parse(chatBody(messages: [["role": "user", "content": [
            ["type": "text", "text": "What is in "], ["type": "text", "text": "this image?"],
            ["type": "image_url", "image_url": ["url": "https://example.com/a.png", "detail": "auto"]],
        ]]]))
        let prompt = try #require(request.transcript.last?.promptValue)
        try #require(prompt.segments.count == 2)
        let text = try #require(prompt.segments[0].textValue)
        let image = try #require(prompt.segments[1].attachmentValue)
        #expect(text.content == "What is in this image?")
        #expect(image.content == .image(Transcript.ImageAttachment(url: URL(string: "https://example.com/a.png")!)))
        #expect(refusal(chatBody(messages: [["role": "user", "content": [
            ["type": "image_url", "image_url": ["url": "file:///etc/passwd"]],
        ]]]))?.param == "messages[0].content[0].image_url.url")
    }

    @Test func assistantHistoryKeepsReasoningTextAndCallsInOrder() throws {
        let request = try parse(chatBody(messages: [
            ["role": "user", "content": "q"],
            ["role": "assistant", "reasoning_content": "hmm", "content": "Let me look.", "tool_calls": [
                ["id": "c1", "type": "function", "function": ["name": "find", "arguments": "{\"q\":1}"]],
                ["id": "c2", "type": "function", "function": ["name": "find", "arguments": "not json"]],
            ]],
            ["role": "tool", "tool_call_id": "c1", "content": "r1"],
            ["role": "tool", "tool_call_id": "c2", "content": [["type": "text", "text": "r2"]]],
        ], [("tools", [["type": "function", "function": ["name": "find"]]])]))
        let kinds = request.transcript.map { entry -> String in
            switch entry {
            case .instructions: "instructions"
            case .prompt: "prompt"
            case .reasoning: "reasoning"
            case .response: "response"
            case .toolCalls: "toolCalls"
            case .toolOutput: "toolOutput"
            }
        }
        #expect(kinds == ["instructions", "prompt", "reasoning", "response", "toolCalls", "toolOutput", "toolOutput"])
        let calls = try #require(request.transcript[4].toolCallsValue)
        #expect(calls.calls.map(\.id) == ["c1", "c2"])
        #expect(calls.calls[0].arguments.jsonValue == ["q": 1])
        // Arguments that were not JSON are kept as the model's text, not refused or lost.
        #expect(calls.calls[1].arguments.jsonValue == "not json")
        let second = try #require(request.transcript[6].toolOutputValue)
        #expect(second.toolName == "find")
        // A tool with no parameters gets the empty object schema.
        #expect(request.enabledTools.first?.parameters.jsonSchema == ["type": "object", "properties": [:]])
    }

    @Test func lastPromptCarriesTheOptionsAndResponseFormat() throws {
        let request = try parse(chatBody("x", [
            ("temperature", 0.5), ("response_format", ["type": "json_object"]),
        ]))
        let prompt = try #require(request.transcript.last?.promptValue)
        #expect(prompt.options.temperature == 0.5)
        #expect(prompt.responseFormat?.kind == .schema(try GenerationSchema(jsonSchema: ["type": "object"])))
    }

    @Test func neutralValuesAreAcceptedAndMeanOff() throws {
        let request = try parse(chatBody("x", [
            ("n", 1), ("stop", .array([])), ("presence_penalty", 0), ("frequency_penalty", 0), ("logit_bias", [:]),
            ("logprobs", false), ("store", false), ("parallel_tool_calls", true), ("top_p", 1), ("top_k", 0),
            ("modalities", ["text"]), ("service_tier", "auto"), ("stream", false), ("metadata", ["team": "a"]),
        ]))
        #expect(request.generationOptions.samplingMode == nil)
        #expect(request.metadata == ["team": "a"])
    }

    @Test(arguments: [
        ("presence_penalty", JSONValue(floatLiteral: 0.5)),
        ("logit_bias", ["50256": -100]),
        ("parallel_tool_calls", false),
        ("store", true),
        ("modalities", ["text", "audio"]),
        ("stop", "END"),
        ("service_tier", "flex"),
        ("functions", [["name": "f"]]),
    ] as [(String, JSONValue)])
    func unsupportedValuesAreRefusedByName(field: String, value: JSONValue) {
        let error = refusal(chatBody("x", [(field, value)]))
        #expect(error?.status == 400)
        #expect(error?.param == field)
        #expect(error?.code == "unsupported_parameter")
    }

    @Test func tokenLimitsMustAgreeAndBePositive() throws {
        #expect(try parse(chatBody("x", [("max_tokens", 9), ("max_completion_tokens", 9)])).generationOptions.maximumResponseTokens == 9)
        #expect(refusal(chatBody("x", [("max_tokens", 9), ("max_completion_tokens", 10)]))?.param == "max_tokens")
        #expect(refusal(chatBody("x", [("max_completion_tokens", 0)]))?.param == "max_completion_tokens")
    }

    @Test func seedsCoverTheWholeSixtyFourBitRange() throws {
        let big = try parse(.object({
            var o = chatBody("x").objectValue!
            o["seed"] = .number(JSONNumber(literal: "18446744073709551615"))
            return o
        }()))
        #expect(big.generationOptions.samplingMode == .random(probabilityThreshold: 1, seed: UInt64.max))
        #expect(try parse(chatBody("x", [("seed", 7), ("top_k", 3)])).generationOptions.samplingMode == .random(top: 3, seed: 7))
        #expect(refusal(chatBody("x", [("seed", 1.5)]))?.param == "seed")
    }

    @Test func messageNamesAndUnknownMessageFieldsAreRefused() {
        #expect(refusal(chatBody(messages: [["role": "user", "content": "x", "name": "bob"]]))?.param == "messages[0].name")
        #expect(refusal(chatBody(messages: [["role": "user", "content": "x", "audio": [:]]]))?.code == "unknown_parameter")
    }

    @Test func invalidToolDefinitionsAreRefused() {
        let bad: [(JSONValue, String)] = [
            ([["type": "function", "function": ["name": "has space"]]], "tools[0].function.name"),
            ([["type": "function", "function": ["name": "f"]], ["type": "function", "function": ["name": "f"]]], "tools[1].function.name"),
            ([["type": "code_interpreter"]], "tools[0].type"),
            ([["type": "function", "function": ["name": "f", "parameters": "{}"]]], "tools[0].function.parameters"),
        ]
        for (tools, param) in bad {
            #expect(refusal(chatBody("x", [("tools", tools)]))?.param == param)
        }
        #expect(refusal(chatBody("x", [
            ("tools", [["type": "function", "function": ["name": "f"]]]),
            ("tool_choice", ["type": "function", "function": ["name": "g"]]),
        ]))?.param == "tool_choice.function.name")
    }

    @Test func toolChoiceNoneKeepsToolsButDisallowsCalls() throws {
        let request = try parse(chatBody("x", [
            ("tools", [["type": "function", "function": ["name": "f"]]]), ("tool_choice", "none"),
        ]))
        #expect(request.generationOptions.toolCallingMode == .disallowed)
        #expect(request.enabledTools.map(\.name) == ["f"])
    }

    @Test func reasoningEffortMapsToReasoningLevels() throws {
        #expect(try parse(chatBody("x", [("reasoning_effort", "low")])).contextOptions.reasoningLevel == .light)
        #expect(try parse(chatBody("x", [("reasoning_effort", "high")])).contextOptions.reasoningLevel == .deep)
        #expect(try parse(chatBody("x", [("reasoning_effort", "none")])).contextOptions.reasoningLevel == .custom("none"))
    }
}
