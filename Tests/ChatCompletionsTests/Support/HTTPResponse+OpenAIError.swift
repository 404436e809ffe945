// The error body an OpenAI-compatible upstream sends, for the scripted servers these tests talk
// to. Written here rather than borrowed from ChatCompletionsServer so the client is checked
// against the documented shape, not against Loom's own server.
import HTTPServer
import LoomJSON

extension HTTPResponse {
    /// `{"error": {"message", "type", "param", "code"}}` with `status` and `headers`.
    static func error(status: Int, message: String, type: String, code: String? = nil, param: String? = nil,
                      headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        let inner = JSONObject([
            ("message", .string(message)),
            ("type", .string(type)),
            ("param", param.map { JSONValue.string($0) } ?? .null),
            ("code", code.map { JSONValue.string($0) } ?? .null),
        ])
        return .json(.object(JSONObject([("error", .object(inner))])), status: status, headers: headers)
    }
}
