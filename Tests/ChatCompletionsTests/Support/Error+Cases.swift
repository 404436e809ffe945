import ChatCompletions
import Provider

/// Case payloads of the errors these tests expect, as optionals, so a test unwraps the case it
/// expects with `#require` and any other error fails it.
extension Error {
    var rateLimited: LanguageModelError.RateLimited? {
        if case .rateLimited(let p)? = self as? LanguageModelError { return p }
        return nil
    }
    var guardrailViolation: LanguageModelError.GuardrailViolation? {
        if case .guardrailViolation(let p)? = self as? LanguageModelError { return p }
        return nil
    }
    var timeout: LanguageModelError.Timeout? {
        if case .timeout(let p)? = self as? LanguageModelError { return p }
        return nil
    }
    /// Why the response was malformed.
    var malformedResponse: String? {
        if case .malformedResponse(let why)? = self as? ChatCompletionsError { return why }
        return nil
    }
}

extension Transcript.Entry {
    /// The response, nil for any other entry.
    var responseValue: Transcript.Response? { if case .response(let r) = self { return r }; return nil }
}
