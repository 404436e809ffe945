import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPServer
import LoomJSON
import LoomSupport
import LoomTestSupport
import Testing
import ChatCompletions

private func withLoopbackServer(_ routes: (inout HTTPRouter) -> Void, _ body: (URL) async throws -> Void) async throws {
    var router = HTTPRouter()
    routes(&router)
    var config = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    config.parallel = 4
    let server = HTTPServer(configuration: config, router: router)
    let port = try server.start()
    do {
        try await body(URL(string: "http://127.0.0.1:\(port)")!)
    } catch {
        await server.stop(gracePeriod: .zero)
        throw error
    }
    await server.stop(gracePeriod: .zero)
}

private func post(_ url: URL, _ body: String = "{}") -> URLRequest {
    var r = URLRequest(url: url)
    r.httpMethod = "POST"
    r.setValue("application/json", forHTTPHeaderField: "Content-Type")
    r.httpBody = Data(body.utf8)
    return r
}

@Suite(.timeLimit(.minutes(2))) struct StreamingHTTPClientTests {
    @Test func fullResponseStatusHeadersAndBody() async throws {
        try await withLoopbackServer({ r in
            r.add("POST", "/v1/echo") { req in
                .json(.object(JSONObject([("got", .string(req.bodyText))])), headers: ["X-Request-Id": "abc"])
            }
        }) { base in
            let client = StreamingHTTPClient()
            let response = try await client.send(post(base.appendingPathComponent("v1/echo"), "{\"q\":1}"))
            #expect(response.statusCode == 200)
            #expect(response.isSuccess)
            #expect(response.header("x-request-id") == "abc")
            #expect(response.header("Content-Type") == "application/json")
            let body = try JSONValue(parsing: try await response.collectBody())
            #expect(body["got"]?.stringValue == "{\"q\":1}")
        }
    }

    @Test func errorStatusIsAResponseNotAThrow() async throws {
        try await withLoopbackServer({ r in
            r.add("POST", "/busy") { _ in
                .error(status: 429, message: "slow down", type: "rate_limit_error", headers: ["Retry-After": "7"])
            }
        }) { base in
            let response = try await StreamingHTTPClient().send(post(base.appendingPathComponent("busy")))
            #expect(response.statusCode == 429)
            #expect(!response.isSuccess)
            #expect(response.header("retry-after") == "7")
            let envelope = try JSONValue(parsing: try await response.collectBody())
            #expect(envelope["error"]?["message"]?.stringValue == "slow down")
        }
    }

    /// The server sends one event and then waits until the client has surfaced it; a client
    /// that buffered the response (as upstream's Linux path does) would never get past here.
    @Test func eventsArriveIncrementally() async throws {
        let clientSawFirst = Gate()
        try await withLoopbackServer({ r in
            r.add("POST", "/v1/chat/completions") { _ in
                .eventStream { w in
                    try await w.sendEvent("{\"n\":1}")
                    guard await clientSawFirst.wait() else { throw CancellationError() }
                    try await w.sendEvent("{\"n\":2}")
                    try await w.sendEvent("[DONE]")
                }
            }
        }) { base in
            let endpoint = try ChatCompletionsEndpoint.resolve(baseURL: base.appendingPathComponent("v1"))
            let response = try await StreamingHTTPClient().send(post(endpoint))
            #expect(response.statusCode == 200)
            #expect(response.header("content-type")?.hasPrefix("text/event-stream") == true)
            var received: [String] = []
            for try await event in response.events() {
                received.append(event.data)
                if received.count == 1 { clientSawFirst.open() }
                if event.isDone { break }
            }
            #expect(received == ["{\"n\":1}", "{\"n\":2}", "[DONE]"])
        }
    }

    /// Cancelling the consuming task mid-stream closes the connection, which the server sees
    /// as a disconnect and turns into cancellation of its producer.
    @Test func cancellingTheConsumerClosesTheConnection() async throws {
        let firstSeen = Gate()
        let producerCancelled = Gate()
        try await withLoopbackServer({ r in
            r.add("POST", "/stream") { _ in
                .eventStream { w in
                    try await w.sendEvent("first")
                    do {
                        try await untilCancelled()
                    } catch {
                        producerCancelled.open()
                        throw error
                    }
                }
            }
        }) { base in
            let client = StreamingHTTPClient()
            let consumer = Task {
                let response = try await client.send(post(base.appendingPathComponent("stream")))
                for try await _ in response.events() { firstSeen.open() }
            }
            #expect(await firstSeen.wait())
            consumer.cancel()
            #expect(await producerCancelled.wait())
            _ = await consumer.result
        }
    }

    @Test func droppingTheResponseClosesTheConnection() async throws {
        let producerCancelled = Gate()
        let headSent = Gate()
        try await withLoopbackServer({ r in
            r.add("POST", "/stream") { _ in
                .eventStream { w in
                    try await w.sendEvent("first")
                    headSent.open()
                    do {
                        try await untilCancelled()
                    } catch {
                        producerCancelled.open()
                        throw error
                    }
                }
            }
        }) { base in
            let client = StreamingHTTPClient()
            do {
                let response = try await client.send(post(base.appendingPathComponent("stream")))
                #expect(response.statusCode == 200)
                #expect(await headSent.wait())
            }
            #expect(await producerCancelled.wait())
        }
    }

    /// libcurl sends `Expect: 100-continue` for larger bodies; the round trip must still work.
    @Test func largeRequestAndResponseBodies() async throws {
        try await withLoopbackServer({ r in
            r.add("POST", "/echo") { req in HTTPResponse(body: req.body) }
        }) { base in
            let payload = String(repeating: "0123456789abcdef", count: 20_000)
            let response = try await StreamingHTTPClient().send(post(base.appendingPathComponent("echo"), payload))
            #expect(response.statusCode == 200)
            #expect(try await response.collectBody() == Array(payload.utf8))
            let small = try await StreamingHTTPClient().send(post(base.appendingPathComponent("echo"), payload))
            await #expect(throws: StreamingHTTPError.bodyTooLarge(limit: 1000)) { _ = try await small.collectBody(limit: 1000) }
        }
    }

    @Test func timeoutsAndTransportErrorsAreTyped() async throws {
        try await withLoopbackServer({ r in
            r.add("POST", "/hang") { _ in
                _ = try? await untilCancelled()
                return .text("late")
            }
        }) { base in
            let config = URLSessionConfiguration.default
            config.timeoutIntervalForRequest = 0.3
            let client = StreamingHTTPClient(configuration: config)
            await #expect(throws: StreamingHTTPError.timedOut) {
                _ = try await client.send(post(base.appendingPathComponent("hang")))
            }
        }
        // A port nothing listens on: bind an ephemeral port, then release it.
        let probe = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), router: HTTPRouter())
        let closedPort = try probe.start()
        await probe.stop(gracePeriod: .zero)
        await #expect {
            _ = try await StreamingHTTPClient().send(post(URL(string: "http://127.0.0.1:\(closedPort)/x")!))
        } throws: { error in
            if case StreamingHTTPError.transport = error { return true }
            return false
        }
        await #expect(throws: StreamingHTTPError.unsupportedURL("ftp://127.0.0.1/x")) {
            _ = try await StreamingHTTPClient().send(URLRequest(url: URL(string: "ftp://127.0.0.1/x")!))
        }
    }
}
