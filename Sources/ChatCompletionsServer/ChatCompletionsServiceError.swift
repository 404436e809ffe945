// A refusal the server sends as an OpenAI-style error envelope: the HTTP status plus the four
// envelope fields clients switch on (`type`, `code`, `param`). Every way a request can fail —
// bad JSON, an option the model cannot honour, a `LanguageModelError` from the executor — ends
// up as one of these, so clients always get a parseable 4xx/5xx instead of a dropped connection.
import Foundation
import HTTPServer
import LoomJSON

/// An error answered with `{"error": {"message", "type", "param", "code"}}` and an HTTP status.
public struct ChatCompletionsServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status (4xx for the caller's mistakes and limits, 5xx for the server's).
    public var status: Int
    /// A human-readable explanation (names the offending field and what is allowed).
    public var message: String
    /// The OpenAI error type, e.g. `invalid_request_error`, `rate_limit_error`, `server_error`.
    public var type: String
    /// A machine-readable code, e.g. `context_length_exceeded`, `unknown_parameter`.
    public var code: String?
    /// The offending request field as a path, e.g. `messages[2].content`.
    public var param: String?
    /// Seconds a client should wait before retrying (sent as `Retry-After`).
    public var retryAfterSeconds: Int?

    /// Builds an error.
    public init(status: Int, message: String, type: String, code: String? = nil, param: String? = nil,
                retryAfterSeconds: Int? = nil) {
        self.status = status
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// `status type/code (param): message`.
    public var description: String {
        "\(status) \(type)/\(code ?? "-")\(param.map { " (\($0))" } ?? ""): \(message)"
    }

    /// The envelope object (what streaming responses send as an in-band `data:` event).
    public var envelope: JSONValue {
        .object(JSONObject([("error", .object(JSONObject([
            ("message", .string(message)),
            ("type", .string(type)),
            ("param", param.map { .string($0) } ?? .null),
            ("code", code.map { .string($0) } ?? .null),
        ])))]))
    }

    /// The error as an HTTP response.
    public var response: HTTPResponse {
        var headers = HTTPHeaders()
        if let retryAfterSeconds { headers.set("Retry-After", String(retryAfterSeconds)) }
        return .json(envelope, status: status, headers: headers)
    }

    // MARK: Common shapes

    /// 400: a field has a value the server does not accept.
    static func invalidValue(_ param: String, _ message: String, code: String = "invalid_value") -> ChatCompletionsServiceError {
        ChatCompletionsServiceError(status: 400, message: message, type: "invalid_request_error", code: code, param: param)
    }

    /// 400: a field has the wrong JSON type.
    static func invalidType(_ param: String, expected: String) -> ChatCompletionsServiceError {
        invalidValue(param, "Invalid type for '\(param)': expected \(expected).", code: "invalid_type")
    }

    /// 400: a required field is missing.
    static func missing(_ param: String) -> ChatCompletionsServiceError {
        invalidValue(param, "Missing required parameter: '\(param)'.", code: "missing_required_parameter")
    }

    /// 400: a valid OpenAI feature this server cannot honour, refused rather than ignored.
    static func unsupported(_ param: String, _ message: String) -> ChatCompletionsServiceError {
        invalidValue(param, message, code: "unsupported_parameter")
    }
}
