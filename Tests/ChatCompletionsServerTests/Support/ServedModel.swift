// A scripted model behind a real HTTPServer on a loopback ephemeral port.
import ChatCompletionsServer
import Foundation
import HTTPServer
import LoomJSON
import LoomMetrics
import Provider

struct ServedModel {
    static let modelID = "scripted"

    let model: ScriptedLanguageModel
    let service: ChatCompletionsService<ScriptedLanguageModel>
    let server: HTTPServer

    var port: UInt16 { server.port }
    /// The executor requests the model received, in order.
    var requests: [LanguageModelExecutorGenerationRequest] { ScriptRegistry.record(model.tag).requests }

    /// Starts a server for `model` (loaded unless `load` is false), requiring `apiKey` when given.
    static func start(_ model: ScriptedLanguageModel, load: Bool = true, apiKey: String? = nil, metrics: MetricsRegistry? = nil,
                      configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                      accessLog: (@Sendable (HTTPAccessRecord) -> Void)? = nil) async throws -> ServedModel {
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        let service = ChatCompletionsService(model: model, modelID: modelID, apiKey: apiKey, metrics: metrics)
        let server = HTTPServer(configuration: configuration, router: service.router, accessLog: accessLog)
        try server.start()
        if load { try await service.load() }
        return ServedModel(model: model, service: service, server: server)
    }

    static func start(script: [ScriptStep], apiKey: String? = nil,
                      configure: (inout HTTPServerConfiguration) -> Void = { _ in }) async throws -> ServedModel {
        try await start(ScriptedLanguageModel(script: script), apiKey: apiKey, configure: configure)
    }

    func client() throws -> LoopbackClient { try LoopbackClient(port: port) }

    func stop() async { await server.stop(gracePeriod: .seconds(2)) }

    /// `POST /v1/chat/completions` with `body`, the whole response.
    func chat(_ body: JSONValue, headers: [(String, String)] = []) async throws -> LoopbackResponse {
        try await client().exchange("POST", "/v1/chat/completions", headers: headers, json: body)
    }
}

/// A request body: the model id, one user message (unless `messages` is given), plus `extra` members.
func chatBody(_ prompt: String = "Hi", messages: [JSONValue]? = nil, _ extra: [(String, JSONValue)] = []) -> JSONValue {
    var object = JSONObject([
        ("model", .string(ServedModel.modelID)),
        ("messages", .array(messages ?? [["role": "user", "content": .string(prompt)]])),
    ])
    for (key, value) in extra { object[key] = value }
    return .object(object)
}
