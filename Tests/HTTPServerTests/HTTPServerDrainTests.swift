import Foundation
import HTTPServer
import LoomJSON
import LoomSupport
import LoomTestSupport
import Testing

/// Draining before a stop, and the request id every response carries; driven over loopback with
/// handshakes (gates), never with clocks.
@Suite(.timeLimit(.minutes(2))) struct HTTPServerDrainTests {
    /// Access records collected from the server's callback.
    final class Records: Sendable {
        let items = Locked<[HTTPAccessRecord]>([])
        func add(_ r: HTTPAccessRecord) { items.withLock { $0.append(r) } }
        var all: [HTTPAccessRecord] { items.withLock { $0 } }
    }

    @Test func drainingRefusesNewAndQueuedRequestsAndLetsTheRunningOneFinish() async throws {
        let started = Gate()
        let release = Gate()
        var router = HTTPRouter()
        router.add("POST", "/gen") { req in
            if req.bodyText == "first" {
                started.open()
                await release.wait()
            }
            return .text(req.bodyText)
        }
        router.add("GET", "/health", limited: false) { _ in .text("ok") }
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.parallel = 1
        configuration.queue = 4
        let server = HTTPServer(configuration: configuration, router: router)
        let port = try server.start()

        let running = try RawClient(port: port)
        try await running.send("POST /gen HTTP/1.1\r\nContent-Length: 5\r\n\r\nfirst")
        #expect(await started.wait())
        let queued = try RawClient(port: port)
        try await queued.send("POST /gen HTTP/1.1\r\nContent-Length: 6\r\n\r\nsecond")
        #expect(await until { server.queued == 1 })

        async let drained: Void = server.drain(timeout: .seconds(3600))
        #expect(await until { server.isDraining })
        let refusedQueued = try await queued.readResponse()
        #expect(refusedQueued.status == 503)
        #expect(refusedQueued.header("Retry-After") == String(HTTPServer.drainingRetryAfterSeconds))
        #expect(refusedQueued.header("Connection") == "close")

        let late = try RawClient(port: port)
        try await late.send("POST /gen HTTP/1.1\r\nContent-Length: 5\r\n\r\nthird")
        let refusedNew = try await late.readResponse()
        #expect(refusedNew.status == 503)
        #expect(refusedNew.header("Retry-After") != nil)

        // Unlimited routes (health checks, metrics) still answer while draining.
        let probe = try RawClient(port: port)
        try await probe.send("GET /health HTTP/1.1\r\n\r\n")
        #expect(try await probe.readResponse().status == 200)

        #expect(!server.isStopping)
        release.open()
        let finished = try await running.readResponse()
        #expect(finished.status == 200)
        #expect(finished.text == "first")
        #expect(finished.header("Connection") == "close")
        await drained
        #expect(server.isStopping)
        #expect(server.inFlight == 0)
    }

    @Test func aDrainThatRunsOutOfTimeCancelsWhatStillRuns() async throws {
        let hung = try await HungRequest.start()
        await hung.server.drain(timeout: .zero)
        #expect(await hung.cancelled.wait())
        #expect(try await hung.client.readsEOF())
    }

    @Test func aStopDuringADrainEndsItAtOnce() async throws {
        let hung = try await HungRequest.start()
        async let drained: Void = hung.server.drain(timeout: .seconds(3600))
        #expect(await until { hung.server.isDraining })
        // The second signal: stop with no grace while the drain waits.
        await hung.server.stop(gracePeriod: .zero)
        await drained
        #expect(await hung.cancelled.wait())
        #expect(try await hung.client.readsEOF())
    }

    @Test func everyResponseCarriesARequestIDThatTheAccessLogRecords() async throws {
        let records = Records()
        let seen = Locked<[String]>([])
        var router = HTTPRouter()
        router.add("GET", "/hello", limited: false) { req in
            seen.withLock { $0.append(req.requestID) }
            req.notes.set("tokens", 3)
            return .text("hi")
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), router: router,
                                accessLog: { records.add($0) })
        let port = try server.start()
        let c = try RawClient(port: port)
        try await c.send("GET /hello HTTP/1.1\r\nX-Request-ID: trace-42.a:b\r\n\r\n")
        let echoed = try await c.readResponse()
        #expect(echoed.header("X-Request-ID") == "trace-42.a:b")
        try await c.send("GET /hello HTTP/1.1\r\nX-Request-ID: has space\r\n\r\n")
        let replaced = try await c.readResponse()
        let made = try #require(replaced.header("X-Request-ID"))
        #expect(UUID(uuidString: made) != nil)
        try await c.send("GET /missing HTTP/1.1\r\n\r\n")
        let missing = try await c.readResponse()
        #expect(missing.status == 404)
        let missingID = try #require(missing.header("X-Request-ID"))
        try await c.send("NOT HTTP\r\n\r\n")
        let rejected = try await c.readResponse()
        let rejectedID = try #require(rejected.header("X-Request-ID"))
        await server.stop()

        #expect(seen.withLock { $0 } == ["trace-42.a:b", made])
        let logged = records.all
        #expect(logged.map(\.requestID) == ["trace-42.a:b", made, missingID, rejectedID])
        #expect(logged.first?.notes == JSONObject([("tokens", 3)]))
        #expect(logged[2].notes.isEmpty)
    }

    @Test(arguments: ["abc", "0f8fad5b-d9cb-469f-a165-70867728950e", "a/b+c=d@e_f.g:h", String(repeating: "x", count: 128)])
    func wellFormedIDsAreEchoed(id: String) {
        #expect(HTTPRequestID.accepting(id) == id)
    }

    @Test(arguments: ["", "has space", "quote\"", "new\nline", "ünïcode", "a,b", String(repeating: "x", count: 129)])
    func malformedIDsAreReplaced(id: String) {
        #expect(HTTPRequestID.accepting(id) == nil)
    }
}
