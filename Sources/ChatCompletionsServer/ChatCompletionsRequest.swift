// A `POST /v1/chat/completions` body, validated and translated into what a Loom executor takes.
//
// Rule (the mirror of the client's): every field is either honoured or refused with a 400 that
// names it — never silently dropped. Fields whose value is a no-op (`n: 1`, `presence_penalty:
// 0`, `stop: []`, …) are accepted because ignoring them changes nothing;
// unknown fields are refused as OpenAI does (`unknown_parameter`).
import Foundation
import LoomJSON
import Provider

/// A validated Chat Completions request, translated to Loom's types.
public struct ChatCompletionsRequest: Sendable {
    /// The `model` the client asked for.
    public var model: String
    /// Whether the response is streamed as server-sent `chat.completion.chunk` events.
    public var stream: Bool
    /// `stream_options.include_usage`: a final chunk with empty `choices` and the usage.
    public var includeUsage: Bool
    /// The conversation: system/developer messages → the instructions entry (with every
    /// declared tool), then prompts, responses, tool calls and tool outputs.
    public var transcript: Transcript
    /// The tools the model may call on this request (one tool for a named `tool_choice`).
    public var enabledTools: [Transcript.ToolDefinition]
    /// The schema from `response_format`, enforced by the model's constrained decoding.
    public var schema: GenerationSchema?
    /// Sampling, length and tool-calling controls.
    public var generationOptions: GenerationOptions
    /// The reasoning level, and schema inlining when a schema is set.
    public var contextOptions: ContextOptions
    /// `user` and `metadata` from the body, forwarded to the executor as request metadata.
    public var metadata: [String: String]

    /// The body members this server understands (others are refused).
    static let knownFields: Set<String> = [
        "model", "messages", "stream", "stream_options", "temperature", "top_p", "top_k", "seed",
        "max_tokens", "max_completion_tokens", "n", "stop", "presence_penalty", "frequency_penalty",
        "logit_bias", "logprobs", "top_logprobs", "user", "metadata", "store", "service_tier",
        "parallel_tool_calls", "reasoning_effort", "response_format", "tools", "tool_choice", "modalities",
        "functions", "function_call",
    ]

    /// Parses and validates a request body.
    public init(body: [UInt8]) throws(ChatCompletionsServiceError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: body)
        } catch {
            throw ChatCompletionsServiceError(status: 400, message: "The request body is not valid JSON: \(error)",
                                              type: "invalid_request_error", code: "invalid_json")
        }
        guard case .object(let object) = value else {
            throw ChatCompletionsServiceError(status: 400, message: "The request body must be a JSON object.",
                                              type: "invalid_request_error", code: "invalid_json")
        }
        try self.init(RequestFields(object))
    }

    init(_ body: RequestFields) throws(ChatCompletionsServiceError) {
        try body.rejectUnknown(Self.knownFields)
        model = try body.requiredString("model")
        stream = try body.bool("stream") ?? false
        includeUsage = false
        if let options = try body.fields("stream_options") {
            guard stream else {
                throw .invalidValue("stream_options", "'stream_options' is only allowed when 'stream' is true.")
            }
            try options.rejectUnknown(["include_usage"])
            includeUsage = try options.bool("include_usage") ?? false
        }
        try Self.rejectNoOpOnlyFields(body)
        metadata = try Self.metadata(body)

        let tools = try Self.tools(body)
        let choice = try Self.toolChoice(body, tools: tools)
        enabledTools = choice.enabled
        schema = try Self.responseFormat(body)
        generationOptions = try Self.sampling(body)
        generationOptions.toolCallingMode = choice.mode
        generationOptions.logProbabilities = try Self.logProbabilities(body)
        contextOptions = ContextOptions(includeSchemaInPrompt: schema == nil ? nil : true,
                                        reasoningLevel: try Self.reasoningLevel(body))
        transcript = try Self.transcript(body, tools: tools, options: generationOptions, schema: schema)
    }

    /// The executor request for this body.
    public func executorRequest(id: UUID = UUID()) -> LanguageModelExecutorGenerationRequest {
        LanguageModelExecutorGenerationRequest(
            id: id, transcript: transcript, enabledTools: enabledTools, schema: schema,
            generationOptions: generationOptions, contextOptions: contextOptions,
            metadata: metadata.mapValues { $0 as any Sendable & Codable & Equatable })
    }

    /// The first capability the request needs that `capabilities` lacks, as a 400 — the same
    /// gate `LanguageModelSession` applies before calling an executor.
    public func checkCapabilities(_ capabilities: LanguageModelCapabilities) throws(ChatCompletionsServiceError) {
        func refuse(_ capability: LanguageModelCapabilities.Capability, _ why: String) -> ChatCompletionsServiceError {
            ChatCompletionsServiceError(status: 400, message: "The served model does not support \(capability): \(why)",
                                        type: "invalid_request_error", code: "unsupported_capability",
                                        param: ChatCompletionsServiceError.param(for: capability))
        }
        let declaresTools = transcript.contains { entry in
            if case .instructions(let i) = entry { return !i.toolDefinitions.isEmpty }
            return false
        }
        if (declaresTools || !enabledTools.isEmpty), !capabilities.contains(.toolCalling) {
            throw refuse(.toolCalling, "the request declares tools")
        }
        if schema != nil, !capabilities.contains(.guidedGeneration) {
            throw refuse(.guidedGeneration, "the request asks for a JSON response_format")
        }
        if contextOptions.reasoningLevel != nil, !capabilities.contains(.reasoning) {
            throw refuse(.reasoning, "the request sets reasoning_effort")
        }
        let hasImages = transcript.contains { entry in
            let segments: [Transcript.Segment]
            switch entry {
            case .prompt(let p): segments = p.segments
            case .instructions(let i): segments = i.segments
            case .response(let r): segments = r.segments
            case .toolOutput(let t): segments = t.segments
            case .reasoning(let r): segments = r.segments
            case .toolCalls: segments = []
            }
            return segments.contains { if case .attachment = $0 { return true }; return false }
        }
        if hasImages, !capabilities.contains(.vision) {
            throw refuse(.vision, "the messages contain images")
        }
    }

    // MARK: Fields accepted only as no-ops

    /// Fields that exist in the API but whose only value this server can honour is the neutral one.
    private static func rejectNoOpOnlyFields(_ body: RequestFields) throws(ChatCompletionsServiceError) {
        if let n = try body.int("n"), n != 1 {
            throw .unsupported("n", "Only one choice per request is supported ('n' must be 1).")
        }
        if let stop = body.value("stop") {
            let empty: Bool
            switch stop {
            case .array(let items): empty = items.isEmpty
            case .string: empty = false
            default: throw .invalidType("stop", expected: "a string or an array of strings")
            }
            if !empty { throw .unsupported("stop", "Stop sequences are not supported by this server.") }
        }
        for penalty in ["presence_penalty", "frequency_penalty"] {
            if let p = try body.double(penalty), p != 0 {
                throw .unsupported(penalty, "'\(penalty)' is not supported by this server (only 0).")
            }
        }
        if let bias = body.value("logit_bias") {
            guard case .object(let o) = bias else { throw .invalidType("logit_bias", expected: "an object") }
            if !o.isEmpty { throw .unsupported("logit_bias", "'logit_bias' is not supported by this server.") }
        }
        if try body.bool("store") == true {
            throw .unsupported("store", "Stored completions are not supported by this server.")
        }
        if let tier = try body.string("service_tier"), tier != "auto", tier != "default" {
            throw .unsupported("service_tier", "Only the 'auto' and 'default' service tiers exist on this server.")
        }
        if try body.bool("parallel_tool_calls") == false {
            throw .unsupported("parallel_tool_calls",
                               "'parallel_tool_calls: false' cannot be enforced by this server; omit it or send true.")
        }
        if let modalities = try body.array("modalities"), modalities != [.string("text")] {
            throw .unsupported("modalities", "Only the 'text' output modality is supported.")
        }
    }

    private static func metadata(_ body: RequestFields) throws(ChatCompletionsServiceError) -> [String: String] {
        var out: [String: String] = [:]
        if let metadata = try body.fields("metadata") {
            for (key, value) in metadata.object {
                guard case .string(let s) = value else { throw .invalidType(metadata.param(key), expected: "a string") }
                out[key] = s
            }
        }
        if let user = try body.string("user") { out["user"] = user }
        return out
    }
}
