import Foundation
import Testing
import ChatCompletions

@Suite struct ErrorEnvelopeAndRetryTests {
    private func envelope(_ text: String) -> ChatCompletionsErrorEnvelope? {
        ChatCompletionsErrorEnvelope(body: Array(text.utf8))
    }

    @Test func dialects() {
        let openai = envelope(#"{"error":{"message":"This model's maximum context length is 4097 tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#)
        #expect(openai?.message.hasPrefix("This model's") == true)
        #expect(openai?.type == "invalid_request_error")
        #expect(openai?.param == "messages")
        #expect(openai?.isContextLengthExceeded == true)
        #expect(openai?.isContentFiltered == false)

        #expect(envelope(#"{"error":"model 'x' not found"}"#)?.message == "model 'x' not found")
        let vllm = envelope(#"{"object":"error","message":"bad","type":"BadRequestError","param":null,"code":400}"#)
        #expect(vllm?.code == "400")
        #expect(vllm?.param == nil)
        #expect(envelope(#"{"detail":"Not Found"}"#)?.message == "Not Found")
        #expect(envelope(#"[{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED"}}]"#)?.message == "quota")
        #expect(envelope(#"{"error":{"message":"flagged","type":"invalid_request_error","code":"content_filter"}}"#)?.isContentFiltered == true)
        #expect(envelope(#"{"error":{"message":"the request exceeds the available context size","type":"exceed_context_size_error"}}"#)?.isContextLengthExceeded == true)
        #expect(envelope("<html>502</html>") == nil)
        #expect(envelope(#"{"ok":true}"#) == nil)
    }

    @Test func retryAfterForms() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(RetryAfter.parse("120", now: now) == now.addingTimeInterval(120))
        let imf = RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now)
        #expect(imf == Date(timeIntervalSince1970: 784_111_777))
        #expect(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == imf)
        #expect(RetryAfter.parse("Sun Nov  6 08:49:37 1994", now: now) == imf)
        #expect(RetryAfter.parse("soon", now: now) == nil)
        #expect(RetryAfter.parse("-5", now: now) == nil)
    }

    @Test func resetDateFromHeaders() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(RetryAfter.resetDate(headers: ["retry-after-ms": "1500", "retry-after": "9"], now: now) == now.addingTimeInterval(1.5))
        #expect(RetryAfter.resetDate(headers: ["retry-after": "9"], now: now) == now.addingTimeInterval(9))
        #expect(RetryAfter.resetDate(headers: ["x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s"], now: now) == now.addingTimeInterval(360))
        #expect(RetryAfter.resetDate(headers: [:], now: now) == nil)
        #expect(RetryAfter.duration("1h2m3.5s") == 3723.5)
        #expect(RetryAfter.duration("250ms") == 0.25)
        #expect(RetryAfter.duration("5x") == nil)
        #expect(RetryAfter.duration("") == nil)
    }
}
