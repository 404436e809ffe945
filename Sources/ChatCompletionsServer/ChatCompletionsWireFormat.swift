// The JSON the server sends: `chat.completion`, `chat.completion.chunk`, `usage` and the model
// list, with members in OpenAI's order so responses diff cleanly against other servers'.
import LoomJSON
import Provider

/// Builders for the response bodies of one completion (`id`, `created` and `model` are shared
/// by every chunk of a stream, as the protocol requires).
public struct ChatCompletionsWireFormat: Sendable {
    /// The completion id, `chatcmpl-…`.
    public var id: String
    /// Unix seconds when the request was accepted.
    public var created: Int
    /// The served model id.
    public var model: String

    /// Builders for one completion.
    public init(id: String, created: Int, model: String) {
        self.id = id
        self.created = created
        self.model = model
    }

    /// The `usage` object.
    public static func usage(_ u: ChatCompletionAssembler.Usage) -> JSONValue {
        .object(JSONObject([
            ("prompt_tokens", .number(JSONNumber(u.promptTokens))),
            ("completion_tokens", .number(JSONNumber(u.completionTokens))),
            ("total_tokens", .number(JSONNumber(u.promptTokens + u.completionTokens))),
            ("prompt_tokens_details", .object(JSONObject([("cached_tokens", .number(JSONNumber(u.cachedTokens)))]))),
            ("completion_tokens_details", .object(JSONObject([("reasoning_tokens", .number(JSONNumber(u.reasoningTokens)))]))),
        ]))
    }

    /// The choice's `logprobs` object: `{"content": [token…], "refusal": null}`, or null when the
    /// request did not ask (`entries` nil).
    public static func logprobs(_ entries: [TokenLogProbability]?) -> JSONValue {
        guard let entries else { return .null }
        return .object(JSONObject([("content", .array(entries.map(\.jsonValue))), ("refusal", .null)]))
    }

    /// A non-streamed `chat.completion`. `refusal` is the model's stated reason when it declined;
    /// `logProbabilities` the content tokens' entries when the request asked for them.
    public func completion(_ a: ChatCompletionAssembler, finishReason: String, refusal: String? = nil,
                           logProbabilities: [TokenLogProbability]? = nil) -> JSONValue {
        var message = JSONObject()
        message["role"] = .string("assistant")
        let text = a.content
        message["content"] = text.isEmpty && (!a.toolCalls.isEmpty || refusal != nil) ? .null : .string(text)
        message["refusal"] = refusal.map { .string($0) } ?? .null
        if !a.reasoning.isEmpty { message["reasoning_content"] = .string(a.reasoning) }
        if !a.toolCalls.isEmpty {
            message["tool_calls"] = .array(a.toolCalls.map { call in
                .object(JSONObject([
                    ("id", .string(call.id)),
                    ("type", .string("function")),
                    ("function", .object(JSONObject([
                        ("name", .string(call.name)),
                        ("arguments", .string(call.arguments.isEmpty ? "{}" : call.arguments)),
                    ]))),
                ]))
            })
        }
        let choice = JSONObject([
            ("index", .number(JSONNumber(0))),
            ("message", .object(message)),
            ("logprobs", Self.logprobs(logProbabilities)),
            ("finish_reason", .string(finishReason)),
        ])
        return .object(JSONObject([
            ("id", .string(id)),
            ("object", .string("chat.completion")),
            ("created", .number(JSONNumber(created))),
            ("model", .string(model)),
            ("choices", .array([.object(choice)])),
            ("usage", Self.usage(a.usage)),
            ("system_fingerprint", .null),
        ]))
    }

    /// A `chat.completion.chunk` with one choice. `usage: null` is included when the client
    /// asked for usage, as OpenAI does on every chunk before the last. `logProbabilities`: the
    /// entries of the tokens of this chunk's content, when the request asked for them.
    public func chunk(delta: JSONObject, finishReason: String? = nil, includeUsageField: Bool,
                      logProbabilities: [TokenLogProbability]? = nil) -> JSONValue {
        let choice = JSONObject([
            ("index", .number(JSONNumber(0))),
            ("delta", .object(delta)),
            ("logprobs", Self.logprobs(logProbabilities)),
            ("finish_reason", finishReason.map { .string($0) } ?? .null),
        ])
        var chunk = header()
        chunk["choices"] = .array([.object(choice)])
        if includeUsageField { chunk["usage"] = .null }
        return .object(chunk)
    }

    /// The last chunk of a stream with `include_usage`: no choices, just the usage.
    public func usageChunk(_ usage: ChatCompletionAssembler.Usage) -> JSONValue {
        var chunk = header()
        chunk["choices"] = .array([])
        chunk["usage"] = Self.usage(usage)
        return .object(chunk)
    }

    /// The delta object for one assembler delta.
    public static func delta(_ d: ChatCompletionAssembler.Delta) -> JSONObject {
        switch d {
        case .content(let text):
            return JSONObject([("content", .string(text))])
        case .reasoning(let text):
            return JSONObject([("reasoning_content", .string(text))])
        case .toolCallStarted(let index, let id, let name, let arguments):
            return JSONObject([("tool_calls", .array([.object(JSONObject([
                ("index", .number(JSONNumber(index))),
                ("id", .string(id)),
                ("type", .string("function")),
                ("function", .object(JSONObject([("name", .string(name)), ("arguments", .string(arguments))]))),
            ]))]))])
        case .toolCallArguments(let index, let text):
            return JSONObject([("tool_calls", .array([.object(JSONObject([
                ("index", .number(JSONNumber(index))),
                ("function", .object(JSONObject([("arguments", .string(text))]))),
            ]))]))])
        }
    }

    private func header() -> JSONObject {
        JSONObject([
            ("id", .string(id)),
            ("object", .string("chat.completion.chunk")),
            ("created", .number(JSONNumber(created))),
            ("model", .string(model)),
            ("system_fingerprint", .null),
        ])
    }

    /// One entry of `GET /v1/models`.
    public static func modelObject(id: String, created: Int, ownedBy: String) -> JSONValue {
        .object(JSONObject([
            ("id", .string(id)),
            ("object", .string("model")),
            ("created", .number(JSONNumber(created))),
            ("owned_by", .string(ownedBy)),
        ]))
    }
}
