// LanguageModelExecutorGenerationRequest → the JSON body of a streaming Chat Completions
// request. Rule: every field of the request is either sent or refused with a clear error,
// never silently dropped (upstream ignored reasoningLevel and request ids, seed-003 §2.6).
//
// Decisions worth knowing:
// - `.greedy` is `temperature: 0` (what vLLM, llama.cpp and OpenAI treat as greedy); upstream's
//   `top_p: 0` is rejected by vLLM. An explicit non-zero temperature with `.greedy` is refused.
// - top-k and seed go in the configured extension fields; with a field disabled, refused.
// - A schema becomes `response_format` json_schema `strict: true`; when the session asks for
//   the schema in the prompt (`includeSchemaInPrompt == true`), it is also appended to the
//   system message so models without constrained decoding see it.
// - `request.metadata` is call-site analytics and is not sent.
import Foundation
import LoomJSON
import Provider

/// Builds Chat Completions request bodies.
public struct ChatCompletionsRequestBuilder: Sendable {
    /// The wire model id.
    public var modelName: String
    /// The field for the response-token limit.
    public var maximumTokensField: ChatCompletionsLanguageModel.MaximumTokensField
    /// Extension field names.
    public var extensionFields: ChatCompletionsLanguageModel.ExtensionFields
    /// Whether earlier reasoning is sent back.
    public var reasoningHistory: ChatCompletionsLanguageModel.ReasoningHistory
    /// Whether to request usage at the end of the stream.
    public var includeUsageInStream: Bool

    /// A builder with the model's settings.
    public init(modelName: String, maximumTokensField: ChatCompletionsLanguageModel.MaximumTokensField = .maxCompletionTokens,
                extensionFields: ChatCompletionsLanguageModel.ExtensionFields = .init(),
                reasoningHistory: ChatCompletionsLanguageModel.ReasoningHistory = .omitted, includeUsageInStream: Bool = true) {
        self.modelName = modelName
        self.maximumTokensField = maximumTokensField
        self.extensionFields = extensionFields
        self.reasoningHistory = reasoningHistory
        self.includeUsageInStream = includeUsageInStream
    }

    /// A builder for `configuration`.
    public init(configuration: ChatCompletionsLanguageModel.Configuration) {
        self.init(modelName: configuration.modelName, maximumTokensField: configuration.maximumTokensField,
                  extensionFields: configuration.extensionFields, reasoningHistory: configuration.reasoningHistory,
                  includeUsageInStream: configuration.includeUsageInStream)
    }

    /// The body for `request`. Throws `ChatCompletionsError.invalidRequest` for options the
    /// protocol cannot express and `LanguageModelError.unsupportedTranscriptContent` for
    /// transcript content the server cannot receive.
    public func body(for request: LanguageModelExecutorGenerationRequest) throws -> JSONValue {
        var body = JSONObject()
        body["model"] = .string(modelName)
        var messages = try ChatCompletionsMessageEncoder(reasoningHistory: reasoningHistory).messages(for: request.transcript)
        if let schema = request.schema, request.contextOptions.includeSchemaInPrompt == true {
            messages = Self.addingSchemaInstruction(schema, to: messages)
        }
        body["messages"] = .array(messages)
        try addSampling(request.generationOptions, to: &body)
        if let limit = request.generationOptions.maximumResponseTokens {
            guard limit > 0 else { throw ChatCompletionsError.invalidRequest("maximumResponseTokens must be positive, not \(limit)") }
            body[maximumTokensField.rawValue] = .number(JSONNumber(limit))
        }
        if let logProbabilities = request.generationOptions.logProbabilities {
            guard logProbabilities.isValid else {
                throw ChatCompletionsError.invalidRequest(
                    "logProbabilities.alternatives must be in 0...\(GenerationOptions.LogProbabilities.maximumAlternatives), not \(logProbabilities.alternatives)")
            }
            body["logprobs"] = .bool(true)
            body["top_logprobs"] = .number(JSONNumber(logProbabilities.alternatives))
        }
        try addTools(request, to: &body)
        if let schema = request.schema { body["response_format"] = try Self.responseFormat(schema) }
        if let level = request.contextOptions.reasoningLevel { body["reasoning_effort"] = .string(Self.effort(level)) }
        body["stream"] = .bool(true)
        if includeUsageInStream { body["stream_options"] = .object(JSONObject([("include_usage", .bool(true))])) }
        return .object(body)
    }

    private func addSampling(_ options: GenerationOptions, to body: inout JSONObject) throws {
        if let t = options.temperature {
            guard t.isFinite, t >= 0 else { throw ChatCompletionsError.invalidRequest("temperature must be a finite non-negative number, not \(t)") }
            body["temperature"] = .number(JSONNumber(t))
        }
        guard let mode = options.samplingMode else { return }
        var seed: UInt64?
        switch mode.kind {
        case .greedy:
            if let t = options.temperature, t != 0 {
                throw ChatCompletionsError.invalidRequest("greedy sampling conflicts with temperature \(t); set one or the other")
            }
            body["temperature"] = .number(JSONNumber(0))
        case .randomTopK(let k, let s):
            guard k > 0 else { throw ChatCompletionsError.invalidRequest("top-k must be positive, not \(k)") }
            guard let field = extensionFields.topK else {
                throw ChatCompletionsError.invalidRequest("top-k sampling needs a top-k extension field, and it is disabled for this server")
            }
            body[field] = .number(JSONNumber(k))
            seed = s
        case .randomProbabilityThreshold(let p, let s):
            guard p.isFinite, p > 0, p <= 1 else { throw ChatCompletionsError.invalidRequest("top-p must be in (0, 1], not \(p)") }
            body["top_p"] = .number(JSONNumber(p))
            seed = s
        }
        if let seed {
            guard let field = extensionFields.seed else {
                throw ChatCompletionsError.invalidRequest("a sampling seed needs the seed extension field, and it is disabled for this server")
            }
            // Seeds above Int64.max are sent as their bit pattern: servers parse a signed 64-bit integer.
            body[field] = .number(JSONNumber(literal: String(Int64(bitPattern: seed))))
        }
    }

    private func addTools(_ request: LanguageModelExecutorGenerationRequest, to body: inout JSONObject) throws {
        let mode = request.generationOptions.toolCallingMode?.kind
        guard !request.enabledToolDefinitions.isEmpty else {
            if mode == .required {
                throw ChatCompletionsError.invalidRequest("tool calling is required but no tools are enabled")
            }
            return  // allowed/disallowed with no tools: nothing to choose between
        }
        body["tools"] = .array(try request.enabledToolDefinitions.map(Self.tool))
        switch mode {
        case .required: body["tool_choice"] = .string("required")
        case .disallowed: body["tool_choice"] = .string("none")
        case .allowed, nil: body["tool_choice"] = .string("auto")
        }
    }

    static func tool(_ definition: Transcript.ToolDefinition) throws -> JSONValue {
        var function = JSONObject()
        function["name"] = .string(definition.name)
        if !definition.description.isEmpty { function["description"] = .string(definition.description) }
        function["parameters"] = try objectSchema(definition.parameters, what: "tool '\(definition.name)' parameters")
        return .object(JSONObject([("type", .string("function")), ("function", .object(function))]))
    }

    static func responseFormat(_ schema: GenerationSchema) throws -> JSONValue {
        let wrapper = JSONObject([
            ("name", .string(wireName(schema.name))),
            ("schema", try objectSchema(schema, what: "response schema")),
            ("strict", .bool(true)),
        ])
        return .object(JSONObject([("type", .string("json_schema")), ("json_schema", .object(wrapper))]))
    }

    /// The schema document; `true` (anything) becomes `{}`, `false` (nothing) is refused.
    private static func objectSchema(_ schema: GenerationSchema, what: String) throws -> JSONValue {
        switch schema.jsonSchema {
        case .bool(true): return .object(JSONObject())
        case .object: return schema.jsonSchema
        default: throw ChatCompletionsError.invalidRequest("the \(what) schema accepts nothing (`false`)")
        }
    }

    /// OpenAI requires `^[a-zA-Z0-9_-]{1,64}$`; other characters become `_`.
    static func wireName(_ name: String) -> String {
        let mapped = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") ? $0 : "_" }.prefix(64))
        return mapped.isEmpty ? "response" : mapped
    }

    static func effort(_ level: ContextOptions.ReasoningLevel) -> String {
        switch level {
        case .light: "low"
        case .moderate: "medium"
        case .deep: "high"
        case .custom(let value): value
        }
    }

    static func addingSchemaInstruction(_ schema: GenerationSchema, to messages: [JSONValue]) -> [JSONValue] {
        let note = "Respond with JSON that conforms to this JSON Schema:\n" + schema.jsonSchema.serialized()
        var out = messages
        if let first = out.first?.objectValue, first["role"]?.stringValue == "system", let text = first["content"]?.stringValue {
            var system = first
            system["content"] = .string(text.isEmpty ? note : text + "\n\n" + note)
            out[0] = .object(system)
        } else {
            out.insert(.object(JSONObject([("role", .string("system")), ("content", .string(note))])), at: 0)
        }
        return out
    }
}
