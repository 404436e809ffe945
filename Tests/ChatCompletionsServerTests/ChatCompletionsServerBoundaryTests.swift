// The server's edges over real loopback HTTP: API keys, malformed and oversize bodies, the
// 429 when saturated, readiness, the model list, executor errors, and client disconnects.
import ChatCompletionsServer
import Foundation
import HTTPServer
import LoomJSON
import Provider
import Testing

@Suite(.timeLimit(.minutes(2))) struct ChatCompletionsServerBoundaryTests {
    @Test func apiKeyIsRequiredExceptForHealth() async throws {
        let served = try await ServedModel.start(script: [.text("ok")], apiKey: "sk-test")
        let missing = try await served.chat(chatBody())
        #expect(missing.status == 401)
        #expect(missing.errorCode == "invalid_api_key")
        #expect(missing.errorType == "invalid_request_error")
        let wrong = try await served.chat(chatBody(), headers: [("Authorization", "Bearer sk-nope")])
        #expect(wrong.status == 401)
        let models = try await served.client().exchange("GET", "/v1/models")
        #expect(models.status == 401)
        let right = try await served.chat(chatBody(), headers: [("Authorization", "Bearer sk-test")])
        #expect(right.status == 200)
        let unknown = try await served.client().exchange("GET", "/v1/nope")
        #expect(unknown.status == 401, "an unauthorized client must not learn which paths exist")
        #expect(missing.header("WWW-Authenticate") == "Bearer")
        #expect(missing.json?["error"]?["message"] == "Missing API key: send 'Authorization: Bearer <key>'")
        #expect(wrong.json?["error"]?["message"] == "Incorrect API key provided")
        #expect(try await served.client().exchange("GET", "/health").status == 200)
        await served.stop()
    }

    @Test(arguments: [
        ("{not json", "invalid_json"),
        ("[1, 2]", "invalid_json"),
        ("{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}", "missing_required_parameter"),
        ("{\"model\": \"scripted\", \"messages\": \"hi\"}", "invalid_type"),
        ("{\"model\": \"scripted\", \"messages\": []}", "invalid_value"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"temperature\": \"hot\"}", "invalid_type"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"temperature\": 3}", "invalid_value"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"n\": 2}", "unsupported_parameter"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"stop\": [\"\\n\"]}", "unsupported_parameter"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"top_k\": 5, \"top_p\": 0.5}", "unsupported_parameter"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"frobnicate\": 1}", "unknown_parameter"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"wizard\", \"content\": \"x\"}]}", "invalid_value"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"assistant\", \"content\": \"x\"}]}", "invalid_value"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"tool\", \"tool_call_id\": \"nope\", \"content\": \"x\"}]}", "invalid_value"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"stream_options\": {\"include_usage\": true}}", "invalid_value"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"tool_choice\": \"required\"}", "invalid_value"),
        ("{\"model\": \"scripted\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"response_format\": {\"type\": \"json_schema\", \"json_schema\": {\"name\": \"x\", \"schema\": 7}}}", "invalid_schema"),
    ])
    func badRequestsGetA400Envelope(body: String, code: String) async throws {
        let served = try await ServedModel.start(script: [.text("ok")])
        let client = try served.client()
        let response = try await client.exchange("POST", "/v1/chat/completions", headers: [("Content-Type", "application/json")],
                                                 body: Array(body.utf8))
        #expect(response.status == 400)
        #expect(response.errorType == "invalid_request_error")
        #expect(response.errorCode == code)
        #expect(response.json?["error"]?["message"]?.stringValue?.isEmpty == false)
        // The connection and the server survive a refused request.
        let next = try await client.exchange("POST", "/v1/chat/completions", json: chatBody())
        #expect(next.status == 200)
        #expect(served.requests.count == 1)
        await served.stop()
    }

    @Test func aliasesAreAcceptedButNotListed() async throws {
        let model = ScriptedLanguageModel(script: [.text("ok")])
        let service = ChatCompletionsService(model: model, modelID: "served", aliases: ["served.gguf"])
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), router: service.router)
        try server.start()
        try await service.load()
        let client = try LoopbackClient(port: server.port)
        for name in ["served", "served.gguf"] {
            let body: JSONValue = ["model": .string(name), "messages": [["role": "user", "content": "x"]]]
            #expect(try await client.exchange("POST", "/v1/chat/completions", json: body).status == 200)
        }
        let list = try await client.exchange("GET", "/v1/models")
        #expect(list.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["served"])
        await server.stop()
    }

    @Test func unknownModelIs404() async throws {
        let served = try await ServedModel.start(script: [.text("ok")])
        var body = chatBody()
        if case .object(var o) = body { o["model"] = "gpt-4o"; body = .object(o) }
        let response = try await served.chat(body)
        #expect(response.status == 404)
        #expect(response.errorCode == "model_not_found")
        await served.stop()
    }

    @Test func undeclaredCapabilitiesAreRefusedBeforeTheExecutor() async throws {
        let served = try await ServedModel.start(ScriptedLanguageModel(script: [.text("ok")], declared: []))
        let tools = try await served.chat(chatBody("x", [("tools", ChatCompletionsEndpointTests.weatherTool.arrayWrapped)]))
        #expect(tools.status == 400)
        #expect(tools.errorCode == "unsupported_capability")
        #expect(tools.json?["error"]?["param"] == "tools")
        let schema = try await served.chat(chatBody("x", [("response_format", ["type": "json_object"])]))
        #expect(schema.status == 400)
        #expect(schema.json?["error"]?["param"] == "response_format")
        let image = try await served.chat(chatBody(messages: [["role": "user", "content": [
            ["type": "text", "text": "what is this?"],
            ["type": "image_url", "image_url": ["url": "https://example.com/cat.png"]],
        ]]]))
        #expect(image.status == 400)
        #expect(image.errorCode == "unsupported_capability")
        #expect(served.requests.isEmpty)
        await served.stop()
    }

    @Test func theServersOwnRefusalsUseTheErrorEnvelope() async throws {
        let served = try await ServedModel.start(script: [.text("ok")])
        let unknown = try await served.client().exchange("GET", "/v1/nope")
        #expect(unknown.status == 404)
        #expect(unknown.header("Content-Type") == "application/json")
        #expect(unknown.json == ["error": ["message": "No route for GET /v1/nope", "type": "invalid_request_error",
                                           "param": nil, "code": "not_found"]])
        let wrongMethod = try await served.client().exchange("GET", "/v1/chat/completions")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("Allow") == "POST")
        #expect(wrongMethod.errorType == "invalid_request_error")
        #expect(wrongMethod.errorCode == "method_not_allowed")
        await served.stop()
    }

    @Test func refusalReasonsMapToOpenAITypesAndCodes() {
        let cases: [(HTTPServerRefusal.Reason, String, String)] = [
            (.unparsableRequest(.malformed("x")), "invalid_request_error", "malformed_request"),
            (.unparsableRequest(.headersTooLarge), "invalid_request_error", "headers_too_large"),
            (.unparsableRequest(.unsupportedTransferEncoding("gzip")), "invalid_request_error", "unsupported_transfer_encoding"),
            (.unparsableRequest(.unsupportedVersion("HTTP/2.0")), "invalid_request_error", "unsupported_http_version"),
            (.readTimedOut, "invalid_request_error", "request_timeout"),
            (.busy, "rate_limit_error", "rate_limit_exceeded"),
            (.tooManyConnections, "server_error", "too_many_connections"),
        ]
        for (reason, type, code) in cases {
            let error = ChatCompletionsServiceError(refusal: HTTPServerRefusal(status: 400, reason: reason, message: "m"))
            #expect(error.type == type && error.code == code, "\(reason)")
            #expect(error.param == nil)
        }
        let busy = ChatCompletionsServiceError.response(
            for: HTTPServerRefusal(status: 429, reason: .busy, message: "busy", headers: ["Retry-After": "1"]))
        #expect(busy.headers.fields.map(\.name) == ["Retry-After", "Content-Type"])
    }

    @Test func oversizeBodyIs413() async throws {
        let served = try await ServedModel.start(script: [.text("ok")]) { $0.limits.maxBodyBytes = 256 }
        let big = chatBody(String(repeating: "x", count: 1024))
        let response = try await served.chat(big)
        #expect(response.status == 413)
        #expect(response.errorType == "invalid_request_error")
        #expect(response.errorCode == "request_too_large")
        #expect(served.requests.isEmpty)
        await served.stop()
    }

    @Test func saturatedServerAnswers429WhileTheFirstRequestIsHeld() async throws {
        let tag = UUID().uuidString
        let served = try await ServedModel.start(ScriptedLanguageModel(tag: tag, script: [
            .text("first"), .waitFor("\(tag).release"), .text(" done"),
        ])) { $0.parallel = 1; $0.queue = 0 }
        let holder = try served.client()
        try await holder.send("POST", "/v1/chat/completions", json: chatBody("hold", [("stream", true)]))
        #expect(try await holder.readHead().status == 200)
        _ = try await holder.nextJSONEvent()  // role
        // Seeing the first delta proves the request holds the only slot (the model is parked).
        #expect(try await holder.nextJSONEvent()["choices"]?[0]?["delta"]?["content"] == "first")

        let refused = try await served.chat(chatBody("second"))
        #expect(refused.status == 429)
        #expect(refused.errorType == "rate_limit_error")
        #expect(refused.header("Retry-After") != nil)

        TestGates.shared.open("\(tag).release")
        let rest = try await holder.remainingEvents()
        #expect(rest.last == "[DONE]")
        // The slot is free again once the first request has finished.
        #expect(try await served.chat(chatBody("third")).status == 200)
        await served.stop()
    }

    @Test func healthIs503UntilTheModelHasLoaded() async throws {
        let tag = UUID().uuidString
        let model = ScriptedLanguageModel(tag: tag, script: [.text("ok")], loadGate: "\(tag).load")
        let served = try await ServedModel.start(model, load: false)
        let loading = Task { try await served.service.load() }

        let before = try await served.client().exchange("GET", "/health")
        #expect(before.status == 503)
        #expect(before.errorCode == "model_loading")
        let early = try await served.chat(chatBody())
        #expect(early.status == 503)
        #expect(early.header("Retry-After") == "1")
        #expect(!served.service.isReady)

        TestGates.shared.open("\(tag).load")
        try await loading.value
        let after = try await served.client().exchange("GET", "/health")
        #expect(after.status == 200)
        #expect(after.json == ["status": "ok"])
        #expect(ScriptRegistry.record(tag).executorsBuilt == 1)
        #expect(ScriptRegistry.record(tag).prewarms == 1)
        #expect(try await served.chat(chatBody()).status == 200)
        await served.stop()
    }

    @Test func modelsListsTheServedModel() async throws {
        let served = try await ServedModel.start(script: [.text("ok")])
        let list = try await served.client().exchange("GET", "/v1/models")
        #expect(list.status == 200)
        #expect(list.json?["object"] == "list")
        #expect(list.json?["data"]?[0]?["id"] == .string(ServedModel.modelID))
        #expect(list.json?["data"]?[0]?["object"] == "model")
        let one = try await served.client().exchange("GET", "/v1/models/\(ServedModel.modelID)")
        #expect(one.status == 200)
        #expect(one.json?["id"] == .string(ServedModel.modelID))
        await served.stop()
    }

    @Test(arguments: [
        (ScriptedFailure.contextOverflow, 400, "context_length_exceeded"),
        (.rateLimited(retryAfterSeconds: 3600), 429, "rate_limit_exceeded"),
        (.unsupportedGuide, 400, "unsupported_schema"),
        (.timeout, 504, "timeout"),
        (.guardrail, 400, "content_policy_violation"),
        (.custom("weights corrupt"), 500, "model_error"),
    ])
    func executorErrorsMapToStatusAndEnvelope(failure: ScriptedFailure, status: Int, code: String) async throws {
        let served = try await ServedModel.start(script: [.fail(failure)])
        let plain = try await served.chat(chatBody())
        #expect(plain.status == status)
        #expect(plain.errorCode == code)
        // Retry-After counts down to the executor's reset date (an hour away when the script threw);
        // the range leaves room for any delay a loaded machine adds, never for a made-up default.
        if status == 429 { #expect(plain.header("Retry-After").flatMap { Int($0) }.map { (3000...3600).contains($0) } == true) }
        // Streaming: a failure before any output is still an HTTP error, not a 200 stream.
        let streamed = try await served.chat(chatBody("x", [("stream", true)]))
        #expect(streamed.status == status)
        #expect(streamed.errorCode == code)
        await served.stop()
    }

    @Test func failureAfterOutputIsAnInBandErrorEvent() async throws {
        let served = try await ServedModel.start(script: [.text("partial"), .fail(.contextOverflow)])
        let client = try served.client()
        try await client.send("POST", "/v1/chat/completions", json: chatBody("x", [("stream", true)]))
        #expect(try await client.readHead().status == 200)
        let events = try await client.remainingEvents()
        #expect(!events.contains("[DONE]"))
        let last = try JSONValue(parsing: try #require(events.last))
        #expect(last["error"]?["code"] == "context_length_exceeded")
        await served.stop()
    }

    @Test func guardrailAfterOutputFinishesWithContentFilter() async throws {
        let served = try await ServedModel.start(script: [.text("partial"), .fail(.guardrail)])
        let response = try await served.chat(chatBody())
        #expect(response.status == 200)
        #expect(response.json?["choices"]?[0]?["finish_reason"] == "content_filter")
        #expect(response.json?["choices"]?[0]?["message"]?["content"] == "partial")
        await served.stop()
    }

    @Test func revisingStreamedTextIsReportedNotSentWrong() async throws {
        let served = try await ServedModel.start(script: [.text("Hello"), .replaceText("Goodbye")])
        let streamed = try await served.chat(chatBody("x", [("stream", true)]))
        let events = streamed.text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(events.last?.contains("stream_revision") == true)
        // Without streaming the revision is simply the answer.
        let plain = try await served.chat(chatBody())
        #expect(plain.json?["choices"]?[0]?["message"]?["content"] == "Goodbye")
        await served.stop()
    }

    @Test func clientDisconnectCancelsStreamingGeneration() async throws {
        let tag = UUID().uuidString
        let served = try await ServedModel.start(ScriptedLanguageModel(tag: tag, script: [.text("a"), .waitForCancellation]))
        let client = try served.client()
        try await client.send("POST", "/v1/chat/completions", json: chatBody("x", [("stream", true)]))
        #expect(try await client.readHead().status == 200)
        _ = try await client.nextJSONEvent()
        #expect(try await client.nextJSONEvent()["choices"]?[0]?["delta"]?["content"] == "a")
        client.disconnect()
        // Handshake: the scripted executor opens this gate only after observing cancellation.
        await TestGates.shared.wait("\(tag).cancelled")
        #expect(TestGates.shared.isOpen("\(tag).cancelled"))
        await served.stop()
    }

    @Test func clientDisconnectCancelsNonStreamingGeneration() async throws {
        let tag = UUID().uuidString
        let served = try await ServedModel.start(ScriptedLanguageModel(tag: tag, script: [
            .signal("\(tag).started"), .waitForCancellation,
        ]))
        let client = try served.client()
        try await client.send("POST", "/v1/chat/completions", json: chatBody())
        await TestGates.shared.wait("\(tag).started")
        client.disconnect()
        await TestGates.shared.wait("\(tag).cancelled")
        #expect(TestGates.shared.isOpen("\(tag).cancelled"))
        await served.stop()
    }

    @Test func requestTimeoutAnswers504AndCancelsGeneration() async throws {
        let tag = UUID().uuidString
        let served = try await ServedModel.start(ScriptedLanguageModel(tag: tag, script: [.signal("\(tag).started"), .waitForCancellation])) {
            $0.requestTimeout = .milliseconds(100)
        }
        let response = try await served.chat(chatBody())
        #expect(response.status == 504)
        #expect(response.errorCode == "timeout")
        // On a loaded machine the deadline can pass before the handler reaches the executor; the
        // handler is then cancelled before generation starts and there is nothing to observe. Once
        // the executor has started, the cancellation that follows the 504 must reach it.
        if TestGates.shared.isOpen("\(tag).started") {
            await TestGates.shared.wait("\(tag).cancelled")
            #expect(TestGates.shared.isOpen("\(tag).cancelled"))
        }
        await served.stop()
    }

    @Test func oneKeepAliveConnectionCarriesStreamedAndPlainRequests() async throws {
        let served = try await ServedModel.start(script: [.text("same")])
        let client = try served.client()
        try await client.send("POST", "/v1/chat/completions", json: chatBody("x", [("stream", true)]))
        #expect(try await client.readHead().status == 200)
        #expect(try await client.remainingEvents().last == "[DONE]")
        let plain = try await client.exchange("POST", "/v1/chat/completions", json: chatBody())
        #expect(plain.json?["choices"]?[0]?["message"]?["content"] == "same")
        #expect(try await client.exchange("GET", "/v1/models").status == 200)
        await served.stop()
    }

    @Test func aClientRequestIDTracesThroughToTheExecutor() async throws {
        let served = try await ServedModel.start(script: [.text("ok")])
        let id = UUID()
        let response = try await served.chat(chatBody(), headers: [("X-Request-ID", id.uuidString)])
        #expect(response.header("X-Request-ID") == id.uuidString)
        #expect(served.requests.first?.id == id)
        #expect(response.json?["id"] == .string("chatcmpl-" + id.uuidString.replacingOccurrences(of: "-", with: "").lowercased()))
        await served.stop()
    }
}

extension JSONValue {
    /// The value as the only element of an array.
    var arrayWrapped: JSONValue { .array([self]) }
}
