// Executor failures → HTTP. The table mirrors what OpenAI-compatible clients (including Loom's
// own ChatCompletionsLanguageModel) map back: 400 `context_length_exceeded` becomes
// `.contextSizeExceeded`, 429 + Retry-After becomes `.rateLimited(resetDate:)`, 504 a timeout.
// Refusals and mid-stream guardrail stops are not errors in the protocol (they are
// `message.refusal` and `finish_reason: content_filter`); the service handles those before
// reaching this table.
import Foundation
import Provider

extension ChatCompletionsServiceError {
    /// The envelope for anything a generation can throw.
    public init(generationError error: any Error) {
        if let served = error as? ChatCompletionsServiceError {
            self = served
            return
        }
        if let modelError = error as? LanguageModelError {
            self.init(modelError)
            return
        }
        if let schemaError = error as? GenerationSchema.SchemaError {
            self.init(status: 400, message: "Invalid JSON Schema: \(schemaError.errorDescription ?? "\(schemaError)")",
                      type: "invalid_request_error", code: "invalid_schema", param: "response_format")
            return
        }
        if error is CancellationError {
            self.init(status: 499, message: "The request was cancelled.", type: "server_error", code: "cancelled")
            return
        }
        // An executor's own error type (model file, engine): reported, never swallowed. This is a
        // local server, so the detail helps the operator more than it could help an attacker.
        self.init(status: 500, message: "The model failed: \(error)", type: "server_error", code: "model_error")
    }

    /// The envelope for a `LanguageModelError`.
    public init(_ error: LanguageModelError) {
        switch error {
        case .contextSizeExceeded(let p):
            self.init(status: 400,
                      message: "This model's maximum context length is \(p.contextSize) tokens, but the request needs "
                          + "\(p.tokenCount) tokens. Shorten the messages or lower max_tokens. (\(p.debugDescription))",
                      type: "invalid_request_error", code: "context_length_exceeded", param: "messages")
        case .rateLimited(let p):
            let wait = p.resetDate.map { max(1, Int($0.timeIntervalSinceNow.rounded(.up))) }
            self.init(status: 429, message: "The model is rate limited: \(p.debugDescription)",
                      type: "rate_limit_error", code: "rate_limit_exceeded", retryAfterSeconds: wait ?? 1)
        case .guardrailViolation(let p):
            self.init(status: 400, message: "The request was flagged by the model's safety system: \(p.debugDescription)",
                      type: "invalid_request_error", code: "content_policy_violation")
        case .refusal(let p):
            self.init(status: 400, message: "The model refused to answer: \(p.debugDescription)",
                      type: "invalid_request_error", code: "refusal")
        case .unsupportedCapability(let p):
            self.init(status: 400, message: "The model does not support \(p.capability): \(p.debugDescription)",
                      type: "invalid_request_error", code: "unsupported_capability",
                      param: Self.param(for: p.capability))
        case .unsupportedTranscriptContent(let p):
            self.init(status: 400, message: "The model cannot process this content: \(p.debugDescription)",
                      type: "invalid_request_error", code: "unsupported_content", param: "messages")
        case .unsupportedGenerationGuide(let p):
            self.init(status: 400,
                      message: "The response schema\(p.schemaName.map { " '\($0)'" } ?? "") uses a constraint the model cannot enforce: \(p.debugDescription)",
                      type: "invalid_request_error", code: "unsupported_schema", param: "response_format")
        case .unsupportedLanguageOrLocale(let p):
            self.init(status: 400, message: "The model does not support the language '\(p.languageCode.identifier)': \(p.debugDescription)",
                      type: "invalid_request_error", code: "unsupported_language")
        case .timeout(let p):
            self.init(status: 504, message: "The model did not respond in time: \(p.debugDescription)",
                      type: "timeout_error", code: "timeout")
        }
    }

    /// The request field that asks for `capability`.
    static func param(for capability: LanguageModelCapabilities.Capability) -> String? {
        switch capability {
        case .toolCalling: "tools"
        case .guidedGeneration: "response_format"
        case .vision: "messages"
        case .reasoning: "reasoning_effort"
        }
    }
}
