import Foundation
import HTTPServer
import LoomJSON
import Provider
import LoomTestSupport
import Testing
import ChatCompletions

private func respondError(_ server: ScriptedChatServer, model: ChatCompletionsLanguageModel? = nil) async -> any Error {
    do {
        _ = try await LanguageModelSession(model: model ?? server.model()).respond(to: "hi")
        return CancellationError()  // not expected: the caller checks the case
    } catch {
        return error
    }
}

@Suite(.timeLimit(.minutes(2))) struct ChatCompletionsErrorMappingTests {
    @Test func rateLimitedWithRetryAfterDate() async throws {
        try await withChatServer({ _, _ in
            .error(status: 429, message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded",
                   headers: ["Retry-After": "Wed, 21 Oct 2037 07:28:00 GMT", "X-Request-Id": "req-42"])
        }) { server in
            let error = await respondError(server)
            let p = try #require(error.rateLimited, "expected rateLimited, got \(error)")
            #expect(p.resetDate == Date(timeIntervalSince1970: 2_139_722_880))
            #expect(p.debugDescription.contains("Rate limit reached"))
            #expect(p.metadata["errorCode"] as? String == "rate_limit_exceeded")
            #expect(p.metadata["statusCode"] as? Int == 429)
            #expect(p.metadata["requestID"] as? String == "req-42")
        }
    }

    @Test func rateLimitedWithRetryAfterSeconds() throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let error = ChatCompletionsErrorMapping().error(status: 429, headers: ["retry-after": "7"], body: [], now: now)
        let p = try #require(error.rateLimited, "expected rateLimited, got \(error)")
        #expect(p.resetDate == now.addingTimeInterval(7))
    }

    /// The mapping table over the wire: status + body → error.
    @Test(arguments: [
        (400, #"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#, "context:8192/9000"),
        (400, #"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#, "context:4096/5000"),
        (400, #"{"object":"error","message":"This model's maximum context length is 2048 tokens. However, you requested 3000 tokens (2900 in the messages, 100 in the completion).","type":"BadRequestError","param":null,"code":400}"#, "context:2048/3000"),
        (400, #"{"error":{"message":"The response was filtered due to the prompt triggering content management policy.","type":null,"param":"prompt","code":"content_filter"}}"#, "guardrail"),
        (504, #"{"error":"upstream timed out"}"#, "timeout"),
        (500, #"{"error":{"message":"CUDA out of memory","type":"server_error","param":null,"code":null}}"#, "http:500:CUDA out of memory"),
        (503, "Service Unavailable", "http:503:"),
        (401, #"{"error":"unauthorized"}"#, "http:401:unauthorized"),
    ])
    func httpErrorsMapToTypedErrors(status: Int, body: String, expected: String) async throws {
        try await withChatServer({ _, _ in
            HTTPResponse(status: status, headers: ["Content-Type": body.hasPrefix("{") ? "application/json" : "text/plain"], body: Array(body.utf8))
        }) { server in
            let error = await respondError(server)
            switch error {
            case LanguageModelError.contextSizeExceeded(let p):
                #expect(expected == "context:\(p.contextSize)/\(p.tokenCount)")
                #expect(p.metadata["body"] as? String == body)
            case LanguageModelError.guardrailViolation(let p):
                #expect(expected == "guardrail")
                #expect(p.debugDescription.contains("content management policy"))
            case LanguageModelError.timeout:
                #expect(expected == "timeout")
            case ChatCompletionsError.httpError(let code, let data):
                let envelope = (error as? ChatCompletionsError)?.envelope
                #expect(expected == "http:\(code):\(envelope?.message ?? "")")
                if envelope == nil { #expect(String(decoding: data, as: UTF8.self) == body) }
            default:
                Issue.record("unexpected error \(error) for \(expected)")
            }
        }
    }

    /// Seed 003 §2.7's catch ladder, written against upstream's names, compiles and works;
    /// the 429 reaches the portable LanguageModelError arm.
    @Test func upstreamCatchLadderCompiles() async throws {
        try await withChatServer({ n, _ in
            n == 0 ? .error(status: 500, message: "boom", type: "server_error") : .error(status: 429, message: "slow", type: "rate")
        }) { server in
            var arms: [String] = []
            for _ in 0..<2 {
                do {
                    _ = try await LanguageModelSession(model: server.model()).respond(to: "hi")
                } catch let error as ChatCompletionsLanguageModel.RequestError {
                    if case .httpError(let statusCode, let data) = error {
                        arms.append("http \(statusCode) \(String(decoding: data, as: UTF8.self).contains("boom"))")
                    }
                } catch let error as ChatCompletionsLanguageModel.APIError {
                    arms.append("api \(error.message)")
                } catch let error as LanguageModelError {
                    if case .rateLimited = error { arms.append("rateLimited") }
                }
            }
            #expect(arms == ["http 500 true", "rateLimited"])
        }
    }

    @Test func malformedStreamIsAMalformedResponse() async throws {
        try await withChatServer({ _, _ in stream([Chunk.content("ok"), "{\"choices\": [oops"]) }) { server in
            let error = await respondError(server)
            #expect(error.malformedResponse != nil, "expected malformedResponse, got \(error)")
        }
    }

    /// A 200 that is not a completion (a proxy's HTML page) is an error, not an empty answer.
    @Test func successWithoutChunksIsAMalformedResponse() async throws {
        try await withChatServer({ _, _ in
            HTTPResponse(status: 200, headers: ["Content-Type": "text/html"], body: Array("<html>login</html>".utf8))
        }) { server in
            let error = await respondError(server)
            let why = try #require(error.malformedResponse, "expected malformedResponse, got \(error)")
            #expect(why.contains("text/html"))
        }
    }

    @Test func errorEventInsideTheStream() async throws {
        try await withChatServer({ _, _ in
            stream([Chunk.content("par"), #"{"error":{"message":"model crashed","type":"server_error"}}"#])
        }) { server in
            let error = await respondError(server)
            let envelope = try #require(error as? ChatCompletionsLanguageModel.APIError, "expected APIError, got \(error)")
            #expect(envelope.message == "model crashed")
        }
    }

    @Test func contentFilterFinishThroughTheSession() async throws {
        try await withChatServer({ _, _ in stream([Chunk.content("Here is", finish: "content_filter")]) }) { server in
            let error = await respondError(server)
            #expect(error.guardrailViolation != nil, "expected guardrailViolation, got \(error)")
        }
    }

    /// The server never answers; the request timeout (between bytes) fires.
    @Test func transportTimeoutIsATimeout() async throws {
        let release = Gate()
        try await withChatServer({ _, _ in
            await release.wait()
            return stream([Chunk.content("late")])
        }) { server in
            var model = server.model()
            model.timeouts = .init(request: 1, resource: 60)
            let error = await respondError(server, model: model)
            release.open()
            #expect(error.timeout != nil, "expected timeout, got \(error)")
        }
    }

    @Test func refusedConnectionIsATransportError() async throws {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let model = ChatCompletionsLanguageModel(name: "m", url: refusing.baseURL)
        do {
            _ = try await LanguageModelSession(model: model).respond(to: "hi")
            Issue.record("expected a transport error")
        } catch ChatCompletionsError.transport {
        } catch {
            Issue.record("expected a transport error, got \(error)")
        }
    }
}
