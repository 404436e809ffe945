import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import LoomJSON
import LoomSupport
import Provider
import Testing
import ChatCompletions

/// Every string an error can show: description, debug description, reflection and metadata.
private func everythingShown(_ error: any Error) -> String {
    var out = String(describing: error) + "\n" + String(reflecting: error) + "\n" + error.localizedDescription
    if let e = error as? LanguageModelError {
        switch e {
        case .rateLimited(let p): out += p.debugDescription + p.metadata.map { "\($0)=\($1)" }.joined()
        case .contextSizeExceeded(let p): out += p.debugDescription + p.metadata.map { "\($0)=\($1)" }.joined()
        case .guardrailViolation(let p): out += p.debugDescription + p.metadata.map { "\($0)=\($1)" }.joined()
        case .timeout(let p): out += p.debugDescription + p.metadata.map { "\($0)=\($1)" }.joined()
        default: break
        }
    }
    var dumped = ""
    dump(error, to: &dumped)
    return out + dumped
}

final class TokenCounter: Sendable {
    let calls = Locked(0)
    func next() -> String { calls.withLock { $0 += 1; return "tok-secret-\($0)" } }
}

@Suite(.timeLimit(.minutes(2))) struct ChatCompletionsCredentialTests {
    /// A rotating token: the provider runs once per HTTP request and each request carries
    /// the token it returned.
    @Test func tokenProviderIsCalledPerRequest() async throws {
        let counter = TokenCounter()
        try await withChatServer({ _, _ in stream([Chunk.content("ok"), Chunk.finish("stop")]) }) { server in
            let model = ChatCompletionsLanguageModel(name: "m", url: server.baseURL, tokenProvider: { counter.next() })
            let session = LanguageModelSession(model: model)
            _ = try await session.respond(to: "one")
            _ = try await session.respond(to: "two")
            #expect(counter.calls.withLock { $0 } == 2)
            #expect(server.captured.map { $0.headers["authorization"] } == ["Bearer tok-secret-1", "Bearer tok-secret-2"])
            let r = try #require(session.transcript.last?.responseValue, "no response entry")
            #expect(!r.metadata.values.map(\.jsonString).joined().contains("tok-secret"))
        }
    }

    @Test func azureStyleHeaderWithoutPrefix() async throws {
        try await withChatServer({ _, _ in stream([Chunk.content("ok")]) }) { server in
            var model = ChatCompletionsLanguageModel(name: "gpt4", url: server.baseURL, tokenProvider: { "azure-key" },
                                                     authorizationHeader: "api-key", tokenPrefix: "")
            model.apiVersion = "2024-10-21"
            _ = try await LanguageModelSession(model: model).respond(to: "hi")
            let request = try #require(server.captured.first)
            #expect(request.headers["api-key"] == "azure-key")
            #expect(request.headers["authorization"] == nil)
            #expect(request.query == "api-version=2024-10-21")
        }
    }

    /// Servers echo rejected keys ("Incorrect API key provided: …"); the error must not.
    @Test func credentialsNeverAppearInErrors() async throws {
        try await withChatServer({ _, request in
            let auth = request.headers["authorization"] ?? ""
            let key = request.headers["x-api-key"] ?? ""
            return .error(status: request.headers["x-case"] == "429" ? 429 : 401,
                          message: "Incorrect API key provided: \(auth) / \(key)", type: "invalid_request_error",
                          headers: ["X-Request-Id": "echo \(key)"])
        }) { server in
            let counter = TokenCounter()
            let byProvider = ChatCompletionsLanguageModel(name: "m", url: server.baseURL, tokenProvider: { counter.next() },
                                                          additionalHeaders: ["X-Api-Key": "hdr-secret-value"])
            let byHeader = ChatCompletionsLanguageModel(name: "m", url: server.baseURL,
                                                        additionalHeaders: ["Authorization": "Bearer sk-header-secret",
                                                                            "X-Api-Key": "hdr-secret-value", "X-Case": "429"])
            for model in [byProvider, byHeader] {
                let error = await {
                    do { _ = try await LanguageModelSession(model: model).respond(to: "hi"); return CancellationError() as any Error }
                    catch { return error }
                }()
                let shown = everythingShown(error)
                #expect(shown.contains("Incorrect API key provided"))
                for secret in ["tok-secret", "sk-header-secret", "hdr-secret-value"] {
                    #expect(!shown.contains(secret), "\(secret) leaked: \(shown)")
                }
                var dumped = ""
                dump(model.executorConfiguration, to: &dumped)
                dump(model, to: &dumped)
                for text in [dumped, String(describing: model.executorConfiguration), String(reflecting: model.executorConfiguration),
                             String(describing: model), String(reflecting: model)] {
                    #expect(!text.contains("sk-header-secret") && !text.contains("hdr-secret-value"))
                }
            }
        }
    }

    struct ProviderFailure: Error {}

    @Test func failingTokenProviderSendsNothing() async throws {
        try await withChatServer({ _, _ in stream([Chunk.content("ok")]) }) { server in
            let model = ChatCompletionsLanguageModel(name: "m", url: server.baseURL, tokenProvider: { throw ProviderFailure() })
            await #expect(throws: ChatCompletionsError.self) {
                _ = try await LanguageModelSession(model: model).respond(to: "hi")
            }
            #expect(server.captured.isEmpty)
        }
    }

    @Test func endpointOverrideIsUsedVerbatim() async throws {
        try await withChatServer({ _, _ in stream([Chunk.content("ok")]) }) { server in
            var model = ChatCompletionsLanguageModel(name: "m", url: URL(string: "http://127.0.0.1:1/wrong")!)
            model.endpointOverride = server.baseURL.appendingPathComponent("chat/completions")
            let response = try await LanguageModelSession(model: model).respond(to: "hi")
            #expect(response.content == "ok")
            #expect(server.captured.first?.path == "/v1/chat/completions")
        }
    }
}

@Suite struct ChatCompletionsConfigurationTests {
    let url = URL(string: "http://127.0.0.1:8000/v1")!

    @Test func equalModelsShareAConfiguration() {
        let a = ChatCompletionsLanguageModel(name: "m", url: url, additionalHeaders: ["A": "1"])
        let b = ChatCompletionsLanguageModel(name: "m", url: url, additionalHeaders: ["A": "1"])
        #expect(a.executorConfiguration == b.executorConfiguration)
        #expect(a.executorConfiguration.hashValue == b.executorConfiguration.hashValue)
    }

    /// Every behavioural field takes part in equality (upstream ignored timeouts).
    @Test func everyBehaviouralFieldDistinguishes() {
        let base = ChatCompletionsLanguageModel(name: "m", url: url)
        var variants: [ChatCompletionsLanguageModel] = []
        func vary(_ change: (inout ChatCompletionsLanguageModel) -> Void) {
            var m = base
            change(&m)
            variants.append(m)
        }
        vary { $0.name = "other" }
        vary { $0.url = URL(string: "http://127.0.0.1:8001/v1")! }
        vary { $0.additionalHeaders = ["Authorization": "Bearer x"] }
        vary { $0.supportsGuidedGeneration = false }
        vary { $0.endpointOverride = URL(string: "http://127.0.0.1:8000/custom")! }
        vary { $0.apiVersion = "2024-10-21" }
        vary { $0.maximumTokensField = .maxTokens }
        vary { $0.extensionFields = .init(topK: nil) }
        vary { $0.extensionFields = .init(seed: "random_seed") }
        vary { $0.reasoningHistory = .reasoningContent }
        vary { $0.requestIDHeaderName = "X-Trace" }
        vary { $0.includeUsageInStream = false }
        vary { $0.timeouts.request = 300 }
        vary { $0.timeouts.resource = 600 }
        for v in variants {
            #expect(v.executorConfiguration != base.executorConfiguration)
        }
        let configurations = Set(variants.map(\.executorConfiguration) + [base.executorConfiguration])
        #expect(configurations.count == variants.count + 1)
    }

    @Test func urlSessionConfigurationTimeoutsAndIdentity() {
        let slow = URLSessionConfiguration.ephemeral
        slow.timeoutIntervalForRequest = 300
        slow.timeoutIntervalForResource = 600
        let a = ChatCompletionsLanguageModel(name: "m", url: url, urlSessionConfiguration: slow)
        #expect(a.timeouts == .init(request: 300, resource: 600))
        // The same model value (same configuration object) is cache-equal...
        let copy = a
        #expect(copy.executorConfiguration == a.executorConfiguration)
        // ...a different configuration object is not, even with equal timeouts: its other
        // settings (proxies, TLS) may differ.
        let b = ChatCompletionsLanguageModel(name: "m", url: url, urlSessionConfiguration: slow)
        #expect(b.executorConfiguration != a.executorConfiguration)
        #expect(ChatCompletionsLanguageModel(name: "m", url: url).executorConfiguration != a.executorConfiguration)
    }

    @Test func tokenProviderIdentityNotToken() {
        let one = ChatCompletionsLanguageModel(name: "m", url: url, tokenProvider: { "a" }, tokenProviderID: "keychain")
        let two = ChatCompletionsLanguageModel(name: "m", url: url, tokenProvider: { "b" }, tokenProviderID: "keychain")
        let other = ChatCompletionsLanguageModel(name: "m", url: url, tokenProvider: { "a" }, tokenProviderID: "other")
        let fresh = ChatCompletionsLanguageModel(name: "m", url: url, tokenProvider: { "a" })
        #expect(one.executorConfiguration == two.executorConfiguration)
        #expect(one.executorConfiguration != other.executorConfiguration)
        #expect(fresh.executorConfiguration != one.executorConfiguration)
        #expect(one.executorConfiguration != ChatCompletionsLanguageModel(name: "m", url: url).executorConfiguration)
        #expect(one.executorConfiguration.tokenProviderID?.hasPrefix("keychain") == true)
    }

    @Test func urlUserInfoIsNotPrinted() {
        let model = ChatCompletionsLanguageModel(name: "m", url: URL(string: "https://alice:pw-secret-1@example.com/v1")!)
        var dumped = ""
        dump(model.executorConfiguration, to: &dumped)
        for text in [dumped, model.executorConfiguration.description] {
            #expect(!text.contains("pw-secret-1") && text.contains("example.com"))
        }
    }

    @Test func invalidURLIsRefusedAtExecutorCreation() {
        let model = ChatCompletionsLanguageModel(name: "m", url: URL(string: "ftp://example.com/v1")!)
        #expect(throws: ChatCompletionsError.self) { _ = try ChatCompletionsExecutor(configuration: model.executorConfiguration) }
    }
}
