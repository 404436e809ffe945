import Foundation
import LoomJSON
import LoomSupport
import Testing
import HTTPServer
import LoomTestSupport

/// Starts a server on an ephemeral loopback port, runs `body`, always stops it.
func withServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                routes: (inout HTTPRouter) -> Void,
                _ body: (HTTPServer, UInt16) async throws -> Void) async throws {
    var config = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configure(&config)
    var router = HTTPRouter()
    routes(&router)
    let server = HTTPServer(configuration: config, router: router)
    let port = try server.start()
    do {
        try await body(server, port)
    } catch {
        await server.stop(gracePeriod: .zero)
        throw error
    }
    await server.stop(gracePeriod: .zero)
}

/// A stand-in authorizer: requests must carry `X-Token: t`, else 403 with a header of its own.
@Sendable private func requireToken(_ request: HTTPRequest) -> HTTPServerRefusal? {
    request.headers["X-Token"] == "t" ? nil
        : HTTPServerRefusal(status: 403, reason: .unauthorized, message: "token required", headers: ["X-Why": "token"])
}

private func echoRoutes(_ r: inout HTTPRouter) {
    r.add("GET", "/hello", limited: false) { _ in .text("hi") }
    r.add("POST", "/echo") { req in
        HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: req.body)
    }
}

// The limit only catches a hang: beside the model suites of a full run on two cores, a test's
// bounded work (many clients at once) can take more than two minutes.
@Suite(.timeLimit(.minutes(6))) struct HTTPServerTests {
    @Test func bindsEphemeralLoopbackPort() async throws {
        try await withServer(routes: echoRoutes) { server, port in
            #expect(port != 0)
            #expect(server.port == port)
        }
    }

    @Test func keepAliveCarriesTwoRequestsOnOneConnection() async throws {
        try await withServer(routes: echoRoutes) { _, port in
            let c = try RawClient(port: port)
            try await c.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
            let r1 = try await c.readResponse()
            #expect(r1.status == 200)
            #expect(r1.text == "abc")
            #expect(r1.header("Connection") == "keep-alive")
            // IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
            let date = r1.header("Date") ?? ""
            #expect(date.count == 29 && date.hasSuffix(" GMT"), "\(date)")
            try await c.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let r2 = try await c.readResponse()
            #expect(r2.status == 200)
            #expect(r2.text == "hi")
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer(routes: echoRoutes) { _, port in
            let c = try RawClient(port: port)
            try await c.send("POST /echo HTTP/1.1\r\nContent-Length: 1\r\n\r\nAPOST /echo HTTP/1.1\r\nContent-Length: 1\r\n\r\nB")
            #expect(try await c.readResponse().text == "A")
            #expect(try await c.readResponse().text == "B")
        }
    }

    @Test func connectionCloseAndHTTP10CloseAfterTheResponse() async throws {
        try await withServer(routes: echoRoutes) { _, port in
            let c = try RawClient(port: port)
            try await c.send("GET /hello HTTP/1.1\r\nConnection: close\r\n\r\n")
            let r = try await c.readResponse()
            #expect(r.header("Connection") == "close")
            #expect(try await c.readsEOF())
            let d = try RawClient(port: port)
            try await d.send("GET /hello HTTP/1.0\r\n\r\n")
            #expect(try await d.readResponse().text == "hi")
            #expect(try await d.readsEOF())
        }
    }

    @Test func chunkedRequestBodyAndExpectContinue() async throws {
        try await withServer(routes: echoRoutes) { _, port in
            let c = try RawClient(port: port)
            try await c.send("POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n")
            #expect(try await c.readResponse().text == "Wikipedia")
            try await c.send("POST /echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
            let interim = try await offPool { try c.readHeadNow(skipInterim: false) }
            #expect(interim.0 == 100)
            try await c.send("ok")
            #expect(try await c.readResponse().text == "ok")
        }
    }

    @Test func notFoundAndMethodNotAllowedAreExplainedInPlainTextByDefault() async throws {
        try await withServer(routes: echoRoutes) { _, port in
            let c = try RawClient(port: port)
            try await c.send("GET /nope HTTP/1.1\r\n\r\n")
            let r404 = try await c.readResponse()
            #expect(r404.status == 404)
            #expect(r404.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(r404.text == "No route for GET /nope")
            try await c.send("DELETE /echo HTTP/1.1\r\n\r\n")
            let r405 = try await c.readResponse()
            #expect(r405.status == 405)
            #expect(r405.header("Allow") == "POST")
            #expect(r405.text == "Method DELETE not allowed for /echo")
            // Both are ordinary answers: the connection is still usable.
            try await c.send("GET /hello HTTP/1.1\r\n\r\n")
            #expect(try await c.readResponse().status == 200)
        }
    }

    @Test func oversizeBodyIs413AndMalformedIs400ThenClose() async throws {
        try await withServer({ $0.limits.maxBodyBytes = 10 }, routes: echoRoutes) { _, port in
            let c = try RawClient(port: port)
            try await c.send("POST /echo HTTP/1.1\r\nContent-Length: 11\r\n\r\n")
            let r = try await c.readResponse()
            #expect(r.status == 413)
            #expect(r.text == "request body too large")
            #expect(try await c.readsEOF())

            let d = try RawClient(port: port)
            try await d.send("HELLO THERE\r\n\r\n")
            #expect(try await d.readResponse().status == 400)
            #expect(try await d.readsEOF())

            let e = try RawClient(port: port)
            try await e.send("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 40_000) + "\r\n\r\n")
            let r431 = try await e.readResponse()
            #expect(r431.status == 431, "\(r431.text)")
        }
    }

    @Test func serverSentEventsStreamAsProduced() async throws {
        let clientSawFirst = Gate()
        try await withServer(routes: { r in
            r.add("POST", "/stream") { _ in
                .eventStream { w in
                    try await w.sendEvent("first")
                    // Handshake: nothing more is produced until the client has the first event,
                    // so a buffering server would deadlock here instead of passing.
                    guard await clientSawFirst.wait() else { throw CancellationError() }
                    try await w.sendEvent("second\nline", event: "delta")
                    try await w.sendEvent("[DONE]")
                }
            }
        }) { _, port in
            let c = try RawClient(port: port)
            try await c.send("POST /stream HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            let (status, headers) = try await c.readHead()
            #expect(status == 200)
            #expect(headers.contains { $0.0 == "Transfer-Encoding" && $0.1 == "chunked" })
            #expect(headers.contains { $0.0 == "Content-Type" && $0.1.hasPrefix("text/event-stream") })
            let first = try await c.readChunk()
            #expect(String(decoding: first, as: UTF8.self) == "data: first\n\n")
            clientSawFirst.open()
            var rest = ""
            while true {
                let chunk = try await c.readChunk()
                if chunk.isEmpty { break }
                rest += String(decoding: chunk, as: UTF8.self)
            }
            #expect(rest == "event: delta\ndata: second\ndata: line\n\ndata: [DONE]\n\n")
            // After a complete stream the connection is reusable.
            try await c.send("POST /stream HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            #expect(try await c.readResponse().text.hasPrefix("data: first"))
        }
    }

    @Test func saturatedParallelOneQueueZeroAnswers429() async throws {
        let started = Gate()
        let release = Gate()
        try await withServer({ $0.parallel = 1; $0.queue = 0 }, routes: { r in
            r.add("POST", "/gen") { _ in
                started.open()
                await release.wait()
                return .text("done")
            }
            r.add("GET", "/health", limited: false) { _ in .text("ok") }
        }) { server, port in
            let a = try RawClient(port: port)
            try await a.send("POST /gen HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            #expect(await started.wait())
            let b = try RawClient(port: port)
            try await b.send("POST /gen HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            let busy = try await b.readResponse()
            #expect(busy.status == 429)
            #expect(busy.header("Retry-After") == "1")
            #expect(busy.text.hasPrefix("Server busy: 1 request(s) running"))
            // Unlimited routes still answer while generation is saturated.
            try await b.send("GET /health HTTP/1.1\r\n\r\n")
            #expect(try await b.readResponse().status == 200)
            #expect(server.inFlight == 1)
            release.open()
            #expect(try await a.readResponse().text == "done")
        }
    }

    @Test func queuedRequestRunsWhenASlotFrees() async throws {
        let firstStarted = Gate()
        let release = Gate()
        let runs = Counter()
        try await withServer({ $0.parallel = 1; $0.queue = 1 }, routes: { r in
            r.add("POST", "/gen") { req in
                runs.increment()
                if req.bodyText == "first" {
                    firstStarted.open()
                    await release.wait()
                }
                return .text(req.bodyText)
            }
        }) { server, port in
            let a = try RawClient(port: port)
            try await a.send("POST /gen HTTP/1.1\r\nContent-Length: 5\r\n\r\nfirst")
            #expect(await firstStarted.wait())
            let b = try RawClient(port: port)
            try await b.send("POST /gen HTTP/1.1\r\nContent-Length: 6\r\n\r\nsecond")
            #expect(await until { server.queued != 0 })
            #expect(server.queued == 1)
            #expect(runs.value == 1)
            let c = try RawClient(port: port)
            try await c.send("POST /gen HTTP/1.1\r\nContent-Length: 5\r\n\r\nthird")
            #expect(try await c.readResponse().status == 429)
            release.open()
            #expect(try await a.readResponse().text == "first")
            #expect(try await b.readResponse().text == "second")
        }
    }

    @Test func theAuthorizerGuardsEveryRouteButPublicOnes() async throws {
        try await withServer(routes: { r in
            echoRoutes(&r)
            r.add("GET", "/health", limited: false, isPublic: true) { _ in .text("ok") }
            r.authorizer = requireToken
        }) { _, port in
            let c = try RawClient(port: port)
            try await c.send("GET /hello HTTP/1.1\r\n\r\n")
            let missing = try await c.readResponse()
            #expect(missing.status == 403)
            #expect(missing.text == "token required")
            #expect(missing.header("X-Why") == "token")
            try await c.send("GET /hello HTTP/1.1\r\nX-Token: wrong\r\n\r\n")
            #expect(try await c.readResponse().status == 403)
            // Unknown paths and methods are refused too, so the routes cannot be probed.
            try await c.send("GET /nope HTTP/1.1\r\n\r\n")
            #expect(try await c.readResponse().status == 403)
            try await c.send("DELETE /echo HTTP/1.1\r\n\r\n")
            #expect(try await c.readResponse().status == 403)
            try await c.send("GET /hello HTTP/1.1\r\nX-Token: t\r\n\r\n")
            #expect(try await c.readResponse().text == "hi")
            try await c.send("GET /health HTTP/1.1\r\n\r\n")
            #expect(try await c.readResponse().status == 200)
        }
    }

    @Test func withoutAnAuthorizerEveryRouteIsOpen() async throws {
        #expect(HTTPRouter().authorizer == nil)
        try await withServer(routes: echoRoutes) { _, port in
            let c = try RawClient(port: port)
            try await c.send("GET /hello HTTP/1.1\r\nAuthorization: Bearer anything\r\n\r\n")
            #expect(try await c.readResponse().text == "hi")
        }
    }

    @Test func theRefusalRendererShapesEveryRefusalTheServerMakes() async throws {
        let seen = Locked<[HTTPServerRefusal.Reason]>([])
        try await withServer({ $0.limits.maxBodyBytes = 4 }, routes: { r in
            echoRoutes(&r)
            r.authorizer = requireToken
            r.refusalRenderer = { refusal in
                seen.withLock { $0.append(refusal.reason) }
                return .json(["refused": .string(refusal.message)], status: refusal.status, headers: refusal.headers)
            }
        }) { _, port in
            let c = try RawClient(port: port)
            try await c.send("GET /hello HTTP/1.1\r\n\r\n")
            let denied = try await c.readResponse()
            #expect(denied.status == 403)
            #expect(denied.header("X-Why") == "token")
            #expect(try JSONValue(parsing: denied.text) == ["refused": "token required"])
            try await c.send("GET /nope HTTP/1.1\r\nX-Token: t\r\n\r\n")
            let missing = try await c.readResponse()
            #expect(missing.status == 404)
            #expect(try JSONValue(parsing: missing.text) == ["refused": "No route for GET /nope"])
            try await c.send("DELETE /echo HTTP/1.1\r\nX-Token: t\r\n\r\n")
            let wrongMethod = try await c.readResponse()
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "POST")
            try await c.send("POST /echo HTTP/1.1\r\nX-Token: t\r\nContent-Length: 5\r\n\r\n")
            let tooLarge = try await c.readResponse()
            #expect(tooLarge.status == 413)
            #expect(try JSONValue(parsing: tooLarge.text) == ["refused": "request body too large"])
        }
        #expect(seen.withLock { $0 } == [.unauthorized, .notFound, .methodNotAllowed, .unparsableRequest(.bodyTooLarge)])
    }

    @Test func clientDisconnectCancelsTheHandler() async throws {
        let started = Gate()
        let cancelled = Gate()
        try await withServer(routes: { r in
            r.add("POST", "/gen") { _ in
                started.open()
                _ = try? await untilCancelled()
                cancelled.open()
                return .text("never sent")
            }
        }) { server, port in
            let c = try RawClient(port: port)
            try await c.send("POST /gen HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            #expect(await started.wait())
            c.shutdownBoth()
            #expect(await cancelled.wait())
            // The slot is released once the handler returns.
            #expect(await until { server.inFlight == 0 })
            #expect(server.inFlight == 0)
        }
    }

    @Test func clientDisconnectMidStreamCancelsTheProducer() async throws {
        let started = Gate()
        let cancelled = Gate()
        try await withServer(routes: { r in
            r.add("POST", "/stream") { _ in
                .eventStream { w in
                    try await w.sendEvent("hello")
                    started.open()
                    do {
                        try await untilCancelled()
                    } catch {
                        cancelled.open()
                        throw error
                    }
                }
            }
        }) { _, port in
            let c = try RawClient(port: port)
            try await c.send("POST /stream HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            _ = try await c.readHead()
            _ = try await c.readChunk()
            #expect(await started.wait())
            c.shutdownBoth()
            #expect(await cancelled.wait())
        }
    }

    @Test func requestTimeoutCancelsAndAnswers504() async throws {
        let started = Gate()
        let cancelled = Gate()
        try await withServer({ $0.requestTimeout = .milliseconds(200) }, routes: { r in
            r.add("POST", "/gen") { _ in
                started.open()
                _ = try? await untilCancelled()
                cancelled.open()
                return .text("late")
            }
        }) { _, port in
            let c = try RawClient(port: port)
            try await c.send("POST /gen HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            let r = try await c.readResponse()
            #expect(r.status == 504)
            #expect(r.text == "Request timed out")
            // On a loaded machine the deadline can pass before the handler starts; then it is
            // (correctly) never started. If it did start, it must have been cancelled.
            if started.isOpen { #expect(await cancelled.wait()) }
        }
    }

    @Test func trickledPartialRequestIsCutOffWith408() async throws {
        try await withServer({ $0.readTimeout = .milliseconds(50) }, routes: echoRoutes) { _, port in
            let c = try RawClient(port: port)
            try await c.send("POST /echo HTTP/1.1\r\nContent-Le")
            let r = try await c.readResponse()
            #expect(r.status == 408)
            #expect(try await c.readsEOF())
        }
    }

    @Test func stopClosesIdleConnectionsAndRefusesNewOnes() async throws {
        var router = HTTPRouter()
        echoRoutes(&router)
        // A path only this server serves: once it stops, its port is free, and a server another
        // test starts meanwhile may take it and accept the connection.
        let own = "/own-\(UInt64.random(in: 0 ... .max))"
        router.add("GET", own, limited: false) { _ in .text("still serving") }
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), router: router)
        let port = try server.start()
        let c = try RawClient(port: port)
        try await c.send("GET \(own) HTTP/1.1\r\n\r\n")
        #expect(try await c.readResponse().status == 200)
        await server.stop()
        #expect(try await c.readsEOF())
        // Refused, or answered by some other server, which does not know the path: never served.
        let late = Result { try RawClient(port: port) }
        if case .success(let other) = late {
            // That server may also close or reset the connection: anything but our 200.
            try? await other.send("GET \(own) HTTP/1.1\r\n\r\n")
            let answer = try? await other.readResponse()
            #expect(answer?.status != 200)
        }
    }

    @Test func stopLetsAnInFlightRequestFinish() async throws {
        let started = Gate()
        let release = Gate()
        var router = HTTPRouter()
        router.add("POST", "/gen") { _ in
            started.open()
            await release.wait()
            return .text("finished")
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), router: router)
        let port = try server.start()
        let c = try RawClient(port: port)
        try await c.send("POST /gen HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
        #expect(await started.wait())
        async let stopped: Void = server.stop(gracePeriod: .seconds(30))
        #expect(await until { server.isStopping })
        release.open()
        let r = try await c.readResponse()
        #expect(r.text == "finished")
        #expect(r.header("Connection") == "close")
        await stopped
    }

    @Test func queuedClientThatDisconnectsLeavesTheQueue() async throws {
        let firstStarted = Gate()
        let release = Gate()
        try await withServer({ $0.parallel = 1; $0.queue = 1 }, routes: { r in
            r.add("POST", "/gen") { req in
                if req.bodyText == "first" {
                    firstStarted.open()
                    await release.wait()
                }
                return .text(req.bodyText)
            }
        }) { server, port in
            let a = try RawClient(port: port)
            try await a.send("POST /gen HTTP/1.1\r\nContent-Length: 5\r\n\r\nfirst")
            #expect(await firstStarted.wait())
            let b = try RawClient(port: port)
            try await b.send("POST /gen HTTP/1.1\r\nContent-Length: 6\r\n\r\nsecond")
            #expect(await until { server.queued != 0 })
            #expect(server.queued == 1)
            b.shutdownBoth()
            #expect(await until { server.queued == 0 })
            #expect(server.queued == 0)
            // The freed queue entry is usable again.
            let c = try RawClient(port: port)
            try await c.send("POST /gen HTTP/1.1\r\nContent-Length: 5\r\n\r\nthird")
            #expect(await until { server.queued != 0 })
            release.open()
            #expect(try await a.readResponse().text == "first")
            #expect(try await c.readResponse().text == "third")
        }
    }

    @Test func streamingToAnHTTP10ClientIsCloseDelimited() async throws {
        try await withServer(routes: { r in
            r.add("GET", "/stream") { _ in
                .eventStream { w in
                    try await w.sendEvent("a")
                    try await w.sendEvent("b")
                }
            }
        }) { _, port in
            let c = try RawClient(port: port)
            try await c.send("GET /stream HTTP/1.0\r\n\r\n")
            let r = try await c.readResponse()
            #expect(r.status == 200)
            #expect(r.header("Transfer-Encoding") == nil)
            #expect(r.header("Connection") == "close")
            #expect(r.text == "data: a\n\ndata: b\n\n")
        }
    }

    @Test func failingProducerLeavesTheChunkedBodyUnterminated() async throws {
        struct Boom: Error {}
        try await withServer(routes: { r in
            r.add("GET", "/stream") { _ in
                .eventStream { w in
                    try await w.sendEvent("partial")
                    throw Boom()
                }
            }
        }) { _, port in
            let c = try RawClient(port: port)
            try await c.send("GET /stream HTTP/1.1\r\n\r\n")
            _ = try await c.readHead()
            #expect(String(decoding: try await c.readChunk(), as: UTF8.self) == "data: partial\n\n")
            // No terminating zero-size chunk: the connection just ends.
            await #expect(throws: (any Error).self) { _ = try await c.readChunk() }
        }
    }

    @Test func largeBodiesRoundTrip() async throws {
        try await withServer(routes: echoRoutes) { _, port in
            let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let c = try RawClient(port: port)
            try await c.send(Array("POST /echo HTTP/1.1\r\nContent-Length: \(payload.count)\r\n\r\n".utf8) + payload)
            #expect(try await c.readResponse().body == payload)
        }
    }

    @Test func stopAfterTheGracePeriodCancelsHungHandlers() async throws {
        let hung = try await HungRequest.start()
        await hung.server.stop(gracePeriod: .zero)
        #expect(await hung.cancelled.wait())
        #expect(try await hung.client.readsEOF())
    }

    @Test func accessLogReportsEveryExchange() async throws {
        final class Records: Sendable {
            let items = Locked<[HTTPAccessRecord]>([])
            func add(_ r: HTTPAccessRecord) { items.withLock { $0.append(r) } }
            var all: [HTTPAccessRecord] { items.withLock { $0 } }
        }
        let records = Records()
        var router = HTTPRouter()
        echoRoutes(&router)
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), router: router,
                                accessLog: { records.add($0) })
        let port = try server.start()
        let c = try RawClient(port: port)
        try await c.send("GET /hello HTTP/1.1\r\n\r\n")
        _ = try await c.readResponse()
        try await c.send("GET /missing HTTP/1.1\r\n\r\n")
        _ = try await c.readResponse()
        try await c.send("NOT HTTP\r\n\r\n")
        _ = try await c.readResponse()
        await server.stop()
        let got = records.all.map { "\($0.method) \($0.path) \($0.status.map(String.init) ?? "-") \($0.outcome)" }
        #expect(got == ["GET /hello 200 completed", "GET /missing 404 completed", "  400 rejected"])
    }

    /// Many clients at once against a small gate: every answer is a 200 or a 429, nothing
    /// hangs, and the gate ends empty.
    @Test func concurrentLoadIsAnsweredWith200Or429() async throws {
        try await withServer({ $0.parallel = 2; $0.queue = 2 }, routes: { r in
            r.add("POST", "/gen") { req in
                try? await Task.sleep(for: .milliseconds(1))
                return HTTPResponse(body: req.body)
            }
        }) { server, port in
            let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
                for client in 0..<16 {
                    group.addTask {
                        let c = try RawClient(port: port)
                        var seen: [Int] = []
                        for i in 0..<8 {
                            let body = "\(client)-\(i)"
                            try await c.send("POST /gen HTTP/1.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                            let r = try await c.readResponse()
                            if r.status == 200 { #expect(r.text == body) }
                            seen.append(r.status)
                        }
                        return seen
                    }
                }
                var all: [Int] = []
                for try await s in group { all += s }
                return all
            }
            #expect(statuses.count == 128)
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 429 })
            #expect(statuses.contains(200))
            // A slot is released just after its response is handed over, so wait for it.
            #expect(await until { server.inFlight == 0 })
            #expect(server.inFlight == 0)
            #expect(server.queued == 0)
        }
    }

    @Test func corsIsOffByDefaultAndAnswersPreflightsWhenEnabled() async throws {
        #expect(HTTPServerConfiguration().corsAllowedOrigins.isEmpty)
        #expect(HTTPServerConfiguration().host == "127.0.0.1")
        try await withServer(routes: echoRoutes) { _, port in
            let c = try RawClient(port: port)
            try await c.send("GET /hello HTTP/1.1\r\nOrigin: http://evil.example\r\n\r\n")
            #expect(try await c.readResponse().header("Access-Control-Allow-Origin") == nil)
        }
        try await withServer({ $0.corsAllowedOrigins = ["http://localhost:3000"] }, routes: { r in
            echoRoutes(&r)
            r.authorizer = requireToken
        }) { _, port in
            let c = try RawClient(port: port)
            try await c.send("OPTIONS /echo HTTP/1.1\r\nOrigin: http://localhost:3000\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: authorization, content-type\r\n\r\n")
            let pre = try await c.readResponse()
            #expect(pre.status == 204)
            #expect(pre.header("Content-Length") == nil)
            #expect(pre.header("Access-Control-Allow-Origin") == "http://localhost:3000")
            #expect(pre.header("Access-Control-Allow-Methods") == "POST")
            #expect(pre.header("Access-Control-Allow-Headers") == "authorization, content-type")
            try await c.send("POST /echo HTTP/1.1\r\nOrigin: http://localhost:3000\r\nX-Token: t\r\nContent-Length: 2\r\n\r\nhi")
            let real = try await c.readResponse()
            #expect(real.text == "hi")
            #expect(real.header("Access-Control-Allow-Origin") == "http://localhost:3000")
            try await c.send("OPTIONS /echo HTTP/1.1\r\nOrigin: http://other.example\r\nAccess-Control-Request-Method: POST\r\n\r\n")
            let denied = try await c.readResponse()
            #expect(denied.header("Access-Control-Allow-Origin") == nil)
            #expect(denied.status == 403)
        }
    }

    @Test func theDefaultRefusalIsItsMessageAsPlainTextWithItsHeaders() throws {
        let refusal = HTTPServerRefusal(status: 429, reason: .busy, message: "busy \"now\"", headers: ["Retry-After": "1"])
        let r = HTTPRouter().refusalRenderer(refusal)
        #expect(r.status == 429)
        #expect(r.headers == ["Retry-After": "1", "Content-Type": "text/plain; charset=utf-8"])
        let body = try #require(r.body.fullBytes, "expected a full body")
        #expect(String(decoding: body, as: UTF8.self) == "busy \"now\"")
        let parse = HTTPServerRefusal(.headersTooLarge)
        #expect(parse.status == 431 && parse.reason == .unparsableRequest(.headersTooLarge))
    }

    @Test func sseFormatting() {
        #expect(HTTPStreamWriter.formatEvent("a\r\nb", event: "e", id: "1") == "event: e\nid: 1\ndata: a\ndata: b\n\n")
        #expect(HTTPStreamWriter.formatEvent("") == "data: \n\n")
    }
}

private extension HTTPResponse.Body {
    /// The bytes of a `.full` body, nil for a stream.
    var fullBytes: [UInt8]? { if case .full(let bytes) = self { return bytes }; return nil }
}
