import HTTPServer
import LoomTestSupport

/// A server whose one request has started and runs until it is cancelled: what a stop or a
/// drain must cut short.
struct HungRequest {
    let server: HTTPServer
    let client: RawClient
    /// Opens when the handler sees its cancellation.
    let cancelled: Gate

    /// Starts the server and sends the request; returns once its handler runs.
    static func start() async throws -> HungRequest {
        let started = Gate()
        let cancelled = Gate()
        var router = HTTPRouter()
        router.add("POST", "/gen") { _ in
            started.open()
            _ = try? await untilCancelled()
            cancelled.open()
            return .text("cancelled")
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), router: router)
        let port = try server.start()
        let client = try RawClient(port: port)
        try await client.send("POST /gen HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        guard await started.wait() else { throw HungRequestError() }
        return HungRequest(server: server, client: client, cancelled: cancelled)
    }
}

/// The hung request's handler never started.
struct HungRequestError: Error {}
