// Where a Chat Completions request goes, given the base URL a user configured.
//
// Upstream appends `/v1/chat/completions` to whatever it is given, so the common
// `https://api.openai.com/v1` becomes `…/v1/v1/chat/completions` (seed-003 §2). The rule here
// is the one every row of the table follows: a base URL that already names an API
// root (any non-empty path: `/v1`, `/v1beta/openai`, `/api/v3`, an Azure deployment) gets
// `/chat/completions`; a bare host gets the conventional `/v1/chat/completions`; a URL that
// already ends in `/chat/completions` is used as is.
import Foundation

/// Why an endpoint could not be resolved.
public enum ChatCompletionsEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not an absolute http(s) URL with a host.
    case invalidURL(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .invalidURL(let u): "'\(u)' is not an http or https URL with a host"
        }
    }
}

/// Endpoint resolution for OpenAI-compatible Chat Completions servers.
public enum ChatCompletionsEndpoint {
    /// The path every Chat Completions endpoint ends with.
    public static let suffix = "/chat/completions"

    /// The endpoint for `baseURL`, or `override` verbatim when given. When `apiVersion` is set
    /// (Azure OpenAI), an `api-version` query item is added unless the URL already has one.
    /// Existing query items of the base URL are kept.
    public static func resolve(baseURL: URL, override: URL? = nil, apiVersion: String? = nil) throws(ChatCompletionsEndpointError) -> URL {
        let source = override ?? baseURL
        guard var components = URLComponents(url: source, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty else {
            throw .invalidURL(source.absoluteString)
        }
        if override == nil {
            var path = components.percentEncodedPath
            while path.hasSuffix("/") { path.removeLast() }
            if path.isEmpty {
                path = "/v1" + suffix
            } else if !path.hasSuffix(suffix) {
                path += suffix
            }
            components.percentEncodedPath = path
        }
        if let apiVersion, !(components.queryItems ?? []).contains(where: { $0.name == "api-version" }) {
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "api-version", value: apiVersion)]
        }
        guard let url = components.url else { throw .invalidURL(source.absoluteString) }
        return url
    }
}
