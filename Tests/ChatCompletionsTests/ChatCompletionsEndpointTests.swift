import Foundation
import Testing
import ChatCompletions

@Suite struct ChatCompletionsEndpointTests {
    /// Every row of the endpoint table (base URL → chat completions URL; elided `…` rows spelled out).
    static let table: [(String, String)] = [
        ("https://api.openai.com/v1", "https://api.openai.com/v1/chat/completions"),
        ("http://localhost:8000", "http://localhost:8000/v1/chat/completions"),
        ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1/chat/completions"),
        ("http://localhost:8080/v1/", "http://localhost:8080/v1/chat/completions"),
        ("https://api.example.com/", "https://api.example.com/v1/chat/completions"),
        ("https://generativelanguage.googleapis.com/v1beta/openai", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"),
        ("https://api.example.com/v2", "https://api.example.com/v2/chat/completions"),
        ("https://api.example.com/v3", "https://api.example.com/v3/chat/completions"),
        ("https://ark.example.com/api/v3", "https://ark.example.com/api/v3/chat/completions"),
        ("https://api.example.com/api/v1", "https://api.example.com/api/v1/chat/completions"),
        ("https://x.openai.azure.com/openai/deployments/gpt4", "https://x.openai.azure.com/openai/deployments/gpt4/chat/completions"),
    ]

    @Test(arguments: table)
    func issueTable(base: String, expected: String) throws {
        #expect(try ChatCompletionsEndpoint.resolve(baseURL: URL(string: base)!).absoluteString == expected)
    }

    @Test func azureApiVersionQuery() throws {
        let url = try ChatCompletionsEndpoint.resolve(baseURL: URL(string: "https://x.openai.azure.com/openai/deployments/gpt4")!, apiVersion: "2024-10-21")
        #expect(url.absoluteString == "https://x.openai.azure.com/openai/deployments/gpt4/chat/completions?api-version=2024-10-21")
        let kept = try ChatCompletionsEndpoint.resolve(baseURL: URL(string: "https://x.openai.azure.com/openai/deployments/gpt4?api-version=old")!, apiVersion: "new")
        #expect(kept.absoluteString == "https://x.openai.azure.com/openai/deployments/gpt4/chat/completions?api-version=old")
    }

    @Test func alreadyAnEndpointAndOverride() throws {
        let full = "http://127.0.0.1:8080/v1/chat/completions"
        #expect(try ChatCompletionsEndpoint.resolve(baseURL: URL(string: full)!).absoluteString == full)
        #expect(try ChatCompletionsEndpoint.resolve(baseURL: URL(string: full + "/")!).absoluteString == full)
        let custom = URL(string: "https://gateway.example.com/custom/route?x=1")!
        #expect(try ChatCompletionsEndpoint.resolve(baseURL: URL(string: "https://ignored.example.com/v1")!, override: custom) == custom)
        #expect(try ChatCompletionsEndpoint.resolve(baseURL: URL(string: "https://a.b/v1")!, override: custom, apiVersion: "v").absoluteString
                == "https://gateway.example.com/custom/route?x=1&api-version=v")
    }

    @Test func invalidBaseURLsAreTypedErrors() {
        for bad in ["ftp://example.com/v1", "file:///tmp/x", "localhost:8080", "/v1"] {
            #expect(throws: ChatCompletionsEndpointError.self, "\(bad)") {
                _ = try ChatCompletionsEndpoint.resolve(baseURL: URL(string: bad)!)
            }
        }
    }
}
