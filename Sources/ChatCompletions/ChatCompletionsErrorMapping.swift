// HTTP statuses, error envelopes and transport failures → LanguageModelError where a case fits
// (Apple's provider guidance: "use a built-in LanguageModelError when it fits"), otherwise
// ChatCompletionsError. Every message that reaches an error is scrubbed of credentials first:
// servers do echo keys back ("Incorrect API key provided: sk-…").
import Foundation
import LoomJSON
import Provider

/// Maps server and transport failures to typed errors.
public struct ChatCompletionsErrorMapping: Sendable {
    /// Strings that must never appear in an error (header values, the current token).
    public var secrets: [String]

    /// A mapping that scrubs `secrets` (empty strings are ignored).
    public init(secrets: [String] = []) {
        self.secrets = secrets.filter { !$0.isEmpty }
    }

    /// `text` with every secret (and, for `Bearer x` values, the bare `x`) replaced.
    public func scrub(_ text: String) -> String {
        var out = text
        for secret in secrets {
            out = out.replacingOccurrences(of: secret, with: "<redacted>")
            if let space = secret.lastIndex(of: " ") {
                let bare = String(secret[secret.index(after: space)...])
                if bare.count >= 4 { out = out.replacingOccurrences(of: bare, with: "<redacted>") }
            }
        }
        return out
    }

    /// The error for a non-success response with `status`, lower-cased `headers` and `body`.
    public func error(status: Int, headers: [String: String], body: [UInt8], now: Date = Date()) -> any Error {
        let text = scrub(String(decoding: body.prefix(64 * 1024), as: UTF8.self))
        let envelope = ChatCompletionsErrorEnvelope(body: Array(text.utf8))
        var metadata: [String: any Sendable] = ["statusCode": status, "body": text]
        if let envelope {
            metadata["errorMessage"] = envelope.message
            if let t = envelope.type { metadata["errorType"] = t }
            if let c = envelope.code { metadata["errorCode"] = c }
            if let p = envelope.param { metadata["errorParam"] = p }
        }
        if let id = headers["x-request-id"] ?? headers["request-id"] { metadata["requestID"] = scrub(id) }
        let detail = "HTTP \(status): \(envelope?.message ?? (text.isEmpty ? "(empty body)" : text))"
        if status == 429 {
            let reset = RetryAfter.resetDate(headers: headers, now: now)
            if let reset { metadata["resetDate"] = reset }
            return LanguageModelError.rateLimited(.init(resetDate: reset, debugDescription: detail, metadata: metadata))
        }
        if let envelope, let mapped = Self.typed(envelope, detail: detail, metadata: metadata) { return mapped }
        if status == 408 || status == 504 {
            return LanguageModelError.timeout(.init(debugDescription: detail, metadata: metadata))
        }
        return ChatCompletionsError.httpError(statusCode: status, data: Data(text.utf8))
    }

    /// The error for an error object the server sent inside the event stream: a
    /// LanguageModelError when one fits, else `ChatCompletionsLanguageModel.APIError`.
    public func error(streamed envelope: ChatCompletionsErrorEnvelope) -> any Error {
        var e = envelope
        e.message = scrub(e.message)
        e.body = (try? JSONValue(parsing: scrub(envelope.body.serialized()))) ?? .null
        var metadata: [String: any Sendable] = ["errorMessage": e.message, "body": e.body.serialized()]
        if let t = e.type { metadata["errorType"] = t }
        if let c = e.code { metadata["errorCode"] = c }
        if e.code == "429" || e.type == "rate_limit_error" || e.code == "rate_limit_exceeded" {
            return LanguageModelError.rateLimited(.init(debugDescription: "stream error: \(e.message)", metadata: metadata))
        }
        return Self.typed(e, detail: "stream error: \(e.message)", metadata: metadata) ?? ChatCompletionsLanguageModel.APIError(e)
    }

    /// A transport failure: timeouts → `.timeout`, cancellation stays `CancellationError`.
    public func error(transport error: any Error) -> any Error {
        if error is CancellationError { return error }
        guard let http = error as? StreamingHTTPError else { return error }
        switch http {
        case .timedOut:
            return LanguageModelError.timeout(.init(debugDescription: "The Chat Completions request timed out (\(http.description)).",
                                                    metadata: ["transport": http.description]))
        case .cancelled:
            return CancellationError()
        case .transport(let code, let description):
            return ChatCompletionsError.transport(.transport(code: code, description: scrub(description)))
        default:
            return ChatCompletionsError.transport(http)
        }
    }

    private static func typed(_ envelope: ChatCompletionsErrorEnvelope, detail: String, metadata: [String: any Sendable]) -> (any Error)? {
        if envelope.isContextLengthExceeded {
            let (size, count) = contextNumbers(envelope)
            return LanguageModelError.contextSizeExceeded(.init(contextSize: size, tokenCount: count, debugDescription: detail, metadata: metadata))
        }
        if envelope.isContentFiltered || envelope.message.lowercased().contains("content management policy") {
            return LanguageModelError.guardrailViolation(.init(debugDescription: detail, metadata: metadata))
        }
        return nil
    }

    /// The context size and requested tokens, from llama.cpp's `n_ctx`/`n_prompt_tokens` fields
    /// or OpenAI/vLLM's "maximum context length is N tokens … resulted in / requested M tokens".
    static func contextNumbers(_ envelope: ChatCompletionsErrorEnvelope) -> (Int, Int) {
        let fields = envelope.body["error"]?.objectValue ?? envelope.body.objectValue
        if let n = fields?["n_ctx"]?.intValue {
            return (n, fields?["n_prompt_tokens"]?.intValue ?? 0)
        }
        let m = envelope.message.lowercased()
        func number(after marker: String) -> Int? {
            guard let r = m.range(of: marker) else { return nil }
            let digits = m[r.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber }
            return Int(digits)
        }
        let size = number(after: "maximum context length is") ?? number(after: "context length of") ?? 0
        let count = number(after: "resulted in") ?? number(after: "you requested") ?? number(after: "requested") ?? 0
        return (size, count)
    }
}
