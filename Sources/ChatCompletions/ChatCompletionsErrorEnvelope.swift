// The error bodies OpenAI-compatible servers actually send, normalised. OpenAI nests
// `{"error": {"message", "type", "param", "code"}}`; Ollama sends `{"error": "text"}`; vLLM
// puts `message`/`type`/`code` at the top level; FastAPI-based servers send `{"detail": …}`;
// Gemini's compatibility layer wraps the OpenAI shape in a one-element array.
import LoomJSON

/// A server's error response, whatever its dialect.
public struct ChatCompletionsErrorEnvelope: Sendable, Equatable {
    /// The human-readable message.
    public var message: String
    /// The error `type` (e.g. `invalid_request_error`), when given.
    public var type: String?
    /// The error `code` as text (servers send strings or numbers), when given.
    public var code: String?
    /// The offending parameter, when given.
    public var param: String?
    /// The whole parsed body, kept for diagnostics.
    public var body: JSONValue

    /// Creates an envelope directly.
    public init(message: String, type: String? = nil, code: String? = nil, param: String? = nil, body: JSONValue = .null) {
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.body = body
    }

    /// Parses an error body; nil when it is not JSON or has no recognisable message.
    public init?(body bytes: [UInt8]) {
        guard let json = try? JSONValue(parsing: bytes) else { return nil }
        var root = json
        if let array = json.arrayValue, let first = array.first { root = first }
        guard let object = root.objectValue else { return nil }
        let fields: JSONObject
        if let inner = object["error"]?.objectValue {
            fields = inner
        } else if let text = object["error"]?.stringValue {
            self.init(message: text, body: json)
            return
        } else if object["message"] != nil {
            fields = object
        } else if let detail = object["detail"] {
            self.init(message: detail.stringValue ?? detail.serialized(), body: json)
            return
        } else {
            return nil
        }
        guard let message = fields["message"].flatMap(Self.text) else { return nil }
        self.init(message: message, type: fields["type"].flatMap(Self.text), code: fields["code"].flatMap(Self.text),
                  param: fields["param"].flatMap(Self.text), body: json)
    }

    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .null: nil
        case .string(let s): s
        default: value.serialized()
        }
    }

    /// Whether the server says the prompt (plus requested output) exceeds the model's context:
    /// OpenAI's `context_length_exceeded` code or the messages vLLM, llama.cpp and others use.
    public var isContextLengthExceeded: Bool {
        if code == "context_length_exceeded" || type == "exceed_context_size_error" { return true }
        let m = message.lowercased()
        return ["maximum context length", "context length", "context_length", "context window", "exceeds the available context", "too many tokens"]
            .contains { m.contains($0) }
    }

    /// Whether the server refused on content-policy grounds.
    public var isContentFiltered: Bool {
        ["content_filter", "content_policy_violation"].contains(code ?? "") || type == "content_filter"
    }
}
