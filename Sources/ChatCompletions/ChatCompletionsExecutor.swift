// Runs one generation step against a Chat Completions server: builds the body, asks the token
// provider for a fresh credential, streams the response through StreamingHTTPClient (bytes
// are parsed as they arrive, on Linux too) and forwards each delta to the channel at once.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoomJSON
import Provider

/// The executor of `ChatCompletionsLanguageModel`: one HTTP client (connection pool) per
/// configuration, safe for concurrent requests.
public final class ChatCompletionsExecutor: LanguageModelExecutor {
    /// The model type.
    public typealias Model = ChatCompletionsLanguageModel

    /// The configuration this executor was built from.
    public let configuration: ChatCompletionsLanguageModel.Configuration
    /// The resolved endpoint.
    public let endpoint: URL
    private let client: StreamingHTTPClient

    /// Largest error body read from a failed response.
    static let errorBodyLimit = 1 << 20

    /// Resolves the endpoint and opens an HTTP client with the configured timeouts.
    public init(configuration: ChatCompletionsLanguageModel.Configuration) throws {
        do {
            endpoint = try ChatCompletionsEndpoint.resolve(baseURL: configuration.url, override: configuration.endpointOverride,
                                                           apiVersion: configuration.apiVersion)
        } catch {
            throw ChatCompletionsError.invalidEndpoint(error.description)
        }
        let session = (configuration.sessionConfiguration?.configuration.copy() as? URLSessionConfiguration) ?? .ephemeral
        // swift-corelibs-foundation hands libcurl whole seconds: 0.5 s truncates to 0 and the
        // request times out at once (measured), so fractions are rounded up.
        session.timeoutIntervalForRequest = configuration.timeouts.request.rounded(.up)
        session.timeoutIntervalForResource = configuration.timeouts.resource.rounded(.up)
        self.configuration = configuration
        client = StreamingHTTPClient(configuration: session)
    }

    /// Streams one step of `request` into `channel`.
    public func respond(to request: LanguageModelExecutorGenerationRequest, model: ChatCompletionsLanguageModel,
                        streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
        let body = try ChatCompletionsRequestBuilder(configuration: configuration).body(for: request)
        var urlRequest = URLRequest(url: endpoint)
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        for (name, value) in configuration.additionalHeaders { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.setValue(request.id.uuidString, forHTTPHeaderField: configuration.requestIDHeaderName)
        var secrets = Array(configuration.additionalHeaders.values)
        let components = URLComponents(url: endpoint, resolvingAgainstBaseURL: true)
        secrets += [components?.password, components?.percentEncodedPassword].compactMap { $0 }.filter { $0.count >= 4 }
        if let provider = configuration.tokenProvider {
            let token: String
            do {
                token = try await provider.token()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw ChatCompletionsError.credentialUnavailable("\(type(of: error)): \(ChatCompletionsErrorMapping(secrets: secrets).scrub(String(describing: error)))")
            }
            urlRequest.setValue(provider.prefix + token, forHTTPHeaderField: provider.headerName)
            secrets.append(token)
        }
        urlRequest.httpBody = Data(body.serialized().utf8)
        let mapping = ChatCompletionsErrorMapping(secrets: secrets)

        let response: StreamingHTTPResponse
        do {
            response = try await client.send(urlRequest)
        } catch {
            throw mapping.error(transport: error)
        }
        guard response.isSuccess else {
            let bytes: [UInt8]
            do { bytes = try await response.collectBody(limit: Self.errorBodyLimit) } catch { bytes = [] }
            throw mapping.error(status: response.statusCode, headers: response.headers, body: bytes)
        }

        var translator = ChatCompletionsEventTranslator(mapping: mapping)
        do {
            if response.header("content-type")?.lowercased().hasPrefix("application/json") == true {
                // A server that ignored `stream: true` answered with one completion object.
                let bytes = try await response.collectBody()
                for event in try translator.consume(data: String(decoding: bytes, as: UTF8.self)) { await channel.send(event) }
            } else {
                for try await event in response.events() {
                    try Task.checkCancellation()
                    if event.isDone { break }
                    if event.data.isEmpty { continue }
                    if !event.dataWasValidUTF8 { throw ChatCompletionsError.invalidStreamData }
                    for e in try translator.consume(data: event.data) { await channel.send(e) }
                }
            }
        } catch let error as LanguageModelError {
            throw error
        } catch let error as ChatCompletionsError {
            throw error
        } catch let error as ServerSentEventError {
            throw ChatCompletionsError.malformedResponse(String(describing: error))
        } catch {
            throw mapping.error(transport: error)
        }
        try Task.checkCancellation()
        if translator.chunkCount == 0 {
            // A 200 with no completion chunks (an HTML page from a proxy, a wrong endpoint)
            // would otherwise look like an empty answer.
            let type = response.header("content-type") ?? "none"
            throw ChatCompletionsError.malformedResponse("the server answered 200 (content type \(type)) without any completion chunks")
        }
        if !translator.unnamedToolCalls.isEmpty {
            throw ChatCompletionsError.malformedResponse("tool call(s) at index \(translator.unnamedToolCalls) never received a function name")
        }
        let requestID = response.header("x-request-id") ?? response.header("request-id")
        for event in try translator.finish(serverRequestID: requestID) { await channel.send(event) }
    }
}
