import Foundation
import HTTPServer
import LoomJSON
import LoomSupport
import Provider
import ChatCompletions

/// What the scripted server received.
struct CapturedRequest: Sendable {
    var path: String
    var query: String?
    var headers: HTTPHeaders
    var body: JSONValue
}

/// A loopback Chat Completions server whose `/…/chat/completions` route answers with
/// `script(requestNumber, request)`; every request is captured.
final class ScriptedChatServer: Sendable {
    /// The requests received, in order.
    final class Log: Sendable { let list = Locked<[CapturedRequest]>([]) }
    let log: Log
    private let server: HTTPServer
    let baseURL: URL

    private init(server: HTTPServer, port: UInt16, log: Log) {
        self.server = server
        self.log = log
        baseURL = URL(string: "http://127.0.0.1:\(port)/v1")!
    }

    /// Starts a server on an ephemeral loopback port.
    static func start(_ script: @escaping @Sendable (Int, CapturedRequest) async -> HTTPResponse) throws -> ScriptedChatServer {
        let log = Log()
        var router = HTTPRouter()
        router.add("POST", "/v1/chat/completions") { request in
            let captured = CapturedRequest(path: request.path, query: request.query, headers: request.headers,
                                           body: (try? JSONValue(parsing: request.body)) ?? .null)
            let number = log.list.withLock { list in
                list.append(captured)
                return list.count - 1
            }
            return await script(number, captured)
        }
        var config = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        config.parallel = 4
        let server = HTTPServer(configuration: config, router: router)
        let port = try server.start()
        return ScriptedChatServer(server: server, port: port, log: log)
    }

    func stop() async { await server.stop(gracePeriod: .zero) }

    var captured: [CapturedRequest] { log.list.withLock { $0 } }

    /// A model pointed at this server.
    func model(supportsGuidedGeneration: Bool = true) -> ChatCompletionsLanguageModel {
        ChatCompletionsLanguageModel(name: "test-model", url: baseURL, supportsGuidedGeneration: supportsGuidedGeneration)
    }
}

/// Runs `body` with a scripted server, stopping it afterwards.
func withChatServer(_ script: @escaping @Sendable (Int, CapturedRequest) async -> HTTPResponse,
                    _ body: (ScriptedChatServer) async throws -> Void) async throws {
    let server = try ScriptedChatServer.start(script)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Chunk builders for scripted streams.
enum Chunk {
    static func delta(_ delta: JSONObject, finish: String? = nil) -> String {
        let choice = JSONObject([("index", 0), ("delta", .object(delta)), ("finish_reason", finish.map { .string($0) } ?? .null)])
        return JSONValue.object(JSONObject([("id", "chatcmpl-1"), ("object", "chat.completion.chunk"), ("model", "served-model"),
                                            ("choices", .array([.object(choice)]))])).serialized()
    }
    static func content(_ text: String, finish: String? = nil) -> String { delta(JSONObject([("content", .string(text))]), finish: finish) }
    static func reasoning(_ text: String) -> String { delta(JSONObject([("reasoning_content", .string(text))])) }
    static func finish(_ reason: String) -> String { delta(JSONObject(), finish: reason) }
    static func toolCall(index: Int, id: String? = nil, name: String? = nil, arguments: String? = nil, content: String? = nil) -> String {
        var function = JSONObject()
        if let name { function["name"] = .string(name) }
        if let arguments { function["arguments"] = .string(arguments) }
        var call = JSONObject([("index", .number(JSONNumber(index)))])
        if let id { call["id"] = .string(id); call["type"] = "function" }
        call["function"] = .object(function)
        var d = JSONObject([("tool_calls", .array([.object(call)]))])
        if let content { d["content"] = .string(content) }
        return delta(d)
    }
    static func usage(prompt: Int, completion: Int, cached: Int = 0, reasoning: Int = 0) -> String {
        JSONValue.object(JSONObject([("id", "chatcmpl-1"), ("choices", .array([])), ("usage", .object(JSONObject([
            ("prompt_tokens", .number(JSONNumber(prompt))), ("completion_tokens", .number(JSONNumber(completion))),
            ("prompt_tokens_details", .object(JSONObject([("cached_tokens", .number(JSONNumber(cached)))]))),
            ("completion_tokens_details", .object(JSONObject([("reasoning_tokens", .number(JSONNumber(reasoning)))]))),
        ])))])).serialized()
    }
}

/// A response streaming `events` then `[DONE]`.
func stream(_ events: [String], headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
    .eventStream(headers: headers) { w in
        for e in events { try await w.sendEvent(e) }
        try await w.sendEvent("[DONE]")
    }
}
