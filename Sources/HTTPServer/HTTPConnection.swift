// One client connection, served on its own thread: read a request (bounded in size and time),
// route it, run its handler as a Task, and relay the Task's output to the socket while watching
// for a disconnect or a timeout — either of which cancels the Task.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

final class HTTPConnection: @unchecked Sendable {
    // @unchecked: after init the object is used only by the connection's own thread.
    private let fd: Int32
    private let id: Int
    private let server: HTTPServer
    private let stopPipe: WakePipe
    private var parser: HTTPRequestParser
    private var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)
    // For the access log: the status of the response head sent for the current request, and
    // how the exchange ended.
    private var sentStatus: Int?
    private var outcome = HTTPAccessRecord.Outcome.completed
    /// Headers added to every response head of the current request (unless the response has its
    /// own): its `X-Request-ID`, and CORS.
    private var headHeaders = HTTPHeaders()

    init(fd: Int32, id: Int, server: HTTPServer, stopPipe: WakePipe) {
        self.fd = fd
        self.id = id
        self.server = server
        self.stopPipe = stopPipe
        self.parser = HTTPRequestParser(limits: server.configuration.limits)
    }

    func run() {
        defer {
            // Unregister before close so stop() never shuts down a recycled descriptor.
            server.state.withLock { _ = $0.connections.removeValue(forKey: id) }
            close(fd)
        }
        guard let wake = try? WakePipe() else { return }
        defer { wake.closeBoth() }
        while var request = readRequest() {
            sentStatus = nil
            outcome = .completed
            let started = ContinuousClock.now
            let id = HTTPRequestID.accepting(request.headers[HTTPRequestID.headerName]) ?? HTTPRequestID.generate()
            request.headers.set(HTTPRequestID.headerName, id)
            let keepGoing = serve(request, wake: wake)
            if let log = server.accessLog {
                log(HTTPAccessRecord(method: request.method, path: request.path, status: sentStatus, outcome: outcome,
                                     duration: ContinuousClock.now - started, requestID: id, notes: request.notes.all))
            }
            if !keepGoing || server.isStopping { return }
        }
    }

    // MARK: - Reading

    /// The next request, or nil when the connection should close (EOF, idle timeout, stop,
    /// or a parse error that has already been answered).
    private func readRequest() -> HTTPRequest? {
        let config = server.configuration
        var requestDeadline: ContinuousClock.Instant?
        var sentContinue = false
        let idleDeadline = ContinuousClock.now + config.idleTimeout
        while true {
            do {
                if let request = try parser.next() { return request }
            } catch {
                respondAndClose(server.router.refusalRenderer(HTTPServerRefusal(error)))
                return nil
            }
            if parser.hasPartialRequest && requestDeadline == nil { requestDeadline = ContinuousClock.now + config.readTimeout }
            if let head = parser.pendingHead, head.expectsContinue, !sentContinue {
                sentContinue = true
                guard Socket.sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return nil }
            }
            // While a request is partially read, a stop does not interrupt it; only idle
            // connections are closed by the stop broadcast.
            let partial = parser.hasPartialRequest
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            if !partial { fds.append(pollfd(fd: stopPipe.readEnd, events: Int16(POLLIN), revents: 0)) }
            let rc = Socket.poll(&fds, deadline: partial ? requestDeadline : idleDeadline)
            if rc < 0 { return nil }
            if rc == 0 {
                if partial {
                    respondAndClose(refusal(408, .readTimedOut, "Timed out reading the request"))
                }
                return nil
            }
            if fds.count > 1 && fds[1].revents != 0 { return nil }
            let n = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            parser.append(readBuffer[0..<n])
        }
    }

    /// The router's rendering of a refusal the server makes itself.
    private func refusal(_ status: Int, _ reason: HTTPServerRefusal.Reason, _ message: String,
                         headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse {
        server.router.refusalRenderer(HTTPServerRefusal(status: status, reason: reason, message: message, headers: headers))
    }

    private func respondAndClose(_ response: HTTPResponse) {
        let id = HTTPRequestID.generate()
        server.accessLog?(HTTPAccessRecord(method: "", path: "", status: response.status, outcome: .rejected, duration: .zero,
                                           requestID: id))
        guard Socket.sendAll(fd, Self.serialize(response, body: response.fullBody, keepAlive: false, chunked: false,
                                                extraHeaders: [HTTPRequestID.headerName: id])) else { return }
        lingeringClose()
    }

    /// Closing with unread request bytes queued makes the kernel send RST, which can destroy
    /// the error response before the client reads it. So: half-close, then discard what the
    /// client is still sending (bounded in bytes and time) until it sees our FIN and stops.
    private func lingeringClose() {
        shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .seconds(2)
        var discarded = 0
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while discarded < 4 * 1024 * 1024 {
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            if Socket.poll(&fds, deadline: deadline) <= 0 { return }
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            discarded += n
        }
    }

    // MARK: - Serving

    /// Serves one request; returns whether the connection may carry another.
    private func serve(_ request: HTTPRequest, wake: WakePipe) -> Bool {
        let config = server.configuration
        // A draining server ends keep-alive so clients reconnect (to another instance).
        var keepAlive = request.wantsKeepAlive && !server.isStopping && !server.isDraining
        headHeaders = [HTTPRequestID.headerName: request.requestID]
        if let origin = request.headers["Origin"], !config.corsAllowedOrigins.isEmpty {
            let allowed = config.corsAllowedOrigins.contains("*") ? "*" : (config.corsAllowedOrigins.contains(origin) ? origin : nil)
            if let allowed {
                headHeaders.add("Access-Control-Allow-Origin", allowed)
                headHeaders.add("Vary", "Origin")
                if request.method == "OPTIONS", request.headers.contains("Access-Control-Request-Method"),
                   case .methodNotAllowed(let methods) = server.router.match(method: "OPTIONS", path: request.path) {
                    var preflight = HTTPResponse(status: 204)
                    preflight.headers.add("Access-Control-Allow-Methods", methods.joined(separator: ", "))
                    preflight.headers.add("Access-Control-Allow-Headers", request.headers["Access-Control-Request-Headers"] ?? "Authorization, Content-Type")
                    preflight.headers.add("Access-Control-Max-Age", "600")
                    return sendFull(preflight, keepAlive: keepAlive)
                }
            }
        }
        let route: HTTPRouter.Route
        switch server.router.match(method: request.method, path: request.path) {
        case .found(let r):
            route = r
        case .notFound:
            if let denied = authorizationFailure(request) { return sendFull(denied, keepAlive: keepAlive) }
            return sendFull(refusal(404, .notFound, "No route for \(request.method) \(request.path)"), keepAlive: keepAlive)
        case .methodNotAllowed(let allowed):
            if let denied = authorizationFailure(request) { return sendFull(denied, keepAlive: keepAlive) }
            let allow = allowed.joined(separator: ", ")
            var r = refusal(405, .methodNotAllowed, "Method \(request.method) not allowed for \(request.path)",
                            headers: ["Allow": allow])
            // RFC 9110 §15.5.6: a 405 must list the allowed methods, whatever the renderer sent.
            r.headers.set("Allow", allow)
            return sendFull(r, keepAlive: keepAlive)
        }
        if !route.isPublic, let denied = authorizationFailure(request) { return sendFull(denied, keepAlive: keepAlive) }

        let exchange = ResponseExchange(wake: wake)
        let admission = route.limited ? server.admission : nil
        let busy = refusal(429, .busy, "Server busy: \(config.parallel) request(s) running and \(config.queue) waiting; retry later",
                           headers: ["Retry-After": "1"])
        let draining = refusal(503, .draining, "Server is shutting down; retry shortly",
                               headers: ["Retry-After": String(HTTPServer.drainingRetryAfterSeconds)])
        let handler = route.handler
        let task = Task {
            await Self.runHandler(handler, request, exchange: exchange, admission: admission, busy: busy, draining: draining)
        }
        let deadline = config.requestTimeout.map { ContinuousClock.now + $0 }
        let chunked = request.version == .http11
        var headSent = false

        func abandon(_ why: HTTPAccessRecord.Outcome, _ remaining: ArraySlice<ResponseExchange.Item> = []) -> Bool {
            outcome = why
            task.cancel()
            for case .chunk(_, let c) in remaining { c.resume(throwing: HTTPStreamError.connectionClosed) }
            exchange.close()
            return false
        }

        var fds = [pollfd(fd: fd, events: Socket.pollPeerClosed, revents: 0),
                   pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            let rc = Socket.poll(&fds, deadline: deadline)
            if rc < 0 { return abandon(.failed) }
            if rc == 0 {
                if !headSent {
                    _ = sendFull(refusal(504, .timedOut, "Request timed out"), keepAlive: false)
                }
                return abandon(.timedOut)
            }
            if fds[1].revents != 0 {
                wake.drain()
                let items = exchange.take()
                for (index, item) in items.enumerated() {
                    let rest = items[(index + 1)...]
                    switch item {
                    case .head(let response):
                        headSent = true
                        sentStatus = response.status
                        // A stop or drain that began while the handler ran turns keep-alive off.
                        if server.isStopping || server.isDraining { keepAlive = false }
                        switch response.body {
                        case .full(let bytes):
                            exchange.close()
                            guard Socket.sendAll(fd, Self.serialize(response, body: bytes, keepAlive: keepAlive, chunked: false, extraHeaders: headHeaders)) else {
                                outcome = .clientDisconnected
                                return false
                            }
                            return keepAlive
                        case .stream:
                            if !chunked { keepAlive = false }
                            guard Socket.sendAll(fd, Self.serialize(response, body: nil, keepAlive: keepAlive, chunked: chunked, extraHeaders: headHeaders)) else {
                                return abandon(.clientDisconnected, rest)
                            }
                        }
                    case .chunk(let bytes, let c):
                        if Socket.sendAll(fd, chunked ? Self.chunkFrame(bytes) : bytes) {
                            c.resume()
                        } else {
                            c.resume(throwing: HTTPStreamError.connectionClosed)
                            return abandon(.clientDisconnected, rest)
                        }
                    case .end(let failed):
                        exchange.close()
                        // A failed producer leaves the body unterminated so the client sees the
                        // truncation instead of a well-formed but incomplete stream.
                        if failed { outcome = .failed }
                        if failed || !chunked { return false }
                        return Socket.sendAll(fd, Array("0\r\n\r\n".utf8)) && keepAlive
                    }
                }
            }
            if fds[0].revents & (Socket.pollPeerClosed | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                return abandon(.clientDisconnected)
            }
        }
    }

    private static func runHandler(_ handler: HTTPHandler, _ request: HTTPRequest, exchange: ResponseExchange,
                                   admission: AdmissionControl?, busy: HTTPResponse, draining: HTTPResponse) async {
        if let admission {
            switch await admission.acquire() {
            case .admitted: break
            case .rejected:
                exchange.post(.head(busy))
                return
            case .draining:
                exchange.post(.head(draining))
                return
            case .cancelled:
                return
            }
        }
        defer { admission?.release() }
        let response = await handler(request)
        guard exchange.post(.head(response)) else { return }
        if case .stream(let producer) = response.body {
            var failed = false
            do {
                try await producer(HTTPStreamWriter(exchange: exchange))
            } catch {
                failed = true
            }
            exchange.post(.end(failed: failed))
        }
    }

    /// The router's authorizer's refusal, rendered; nil when the request may proceed.
    private func authorizationFailure(_ request: HTTPRequest) -> HTTPResponse? {
        guard let denied = server.router.authorizer?(request) else { return nil }
        return server.router.refusalRenderer(denied)
    }

    private func sendFull(_ response: HTTPResponse, keepAlive: Bool) -> Bool {
        sentStatus = response.status
        return Socket.sendAll(fd, Self.serialize(response, body: response.fullBody, keepAlive: keepAlive, chunked: false, extraHeaders: headHeaders)) && keepAlive
    }

    // MARK: - Serialization

    /// Status line and headers (plus `body` when given). Framing headers are the server's own.
    static func serialize(_ response: HTTPResponse, body: [UInt8]?, keepAlive: Bool, chunked: Bool,
                          extraHeaders: HTTPHeaders = HTTPHeaders()) -> [UInt8] {
        let status = (200...599).contains(response.status) ? response.status : 500
        // RFC 9110 §8.6: no Content-Length (and no body) on 204 and 304.
        let body = status == 204 || status == 304 ? nil : body
        var text = "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(status))\r\n"
        // A handler that sets its own X-Request-ID keeps it (one id per response).
        let ownID = response.headers.contains(HTTPRequestID.headerName)
        let extra = extraHeaders.fields.filter { !(ownID && $0.name.lowercased() == "x-request-id") }
        for (name, value) in response.headers.fields + extra {
            switch name.lowercased() {
            case "content-length", "transfer-encoding", "connection": continue
            default: break
            }
            // Strip CR/LF so a header value can never split the response.
            let safeName = String(name.unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != ":" })
            let safeValue = String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
            guard !safeName.isEmpty else { continue }
            text += "\(safeName): \(safeValue)\r\n"
        }
        text += "Date: \(httpDate())\r\n"
        if let body {
            text += "Content-Length: \(body.count)\r\n"
        } else if chunked {
            text += "Transfer-Encoding: chunked\r\n"
        }
        text += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        var bytes = Array(text.utf8)
        if let body { bytes.append(contentsOf: body) }
        return bytes
    }

    /// The current time as an IMF-fixdate (RFC 9110 §5.6.7), which an origin server with a
    /// clock must send in `Date`. strftime's %a/%b are locale-dependent, so names are spelled out.
    static func httpDate() -> String {
        var now = time(nil)
        var t = tm()
        gmtime_r(&now, &t)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(days[Int(t.tm_wday) % 7]), \(two(t.tm_mday)) \(months[Int(t.tm_mon) % 12]) \(1900 + t.tm_year) "
            + "\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
    }

    static func chunkFrame(_ bytes: [UInt8]) -> [UInt8] {
        var out = Array((String(bytes.count, radix: 16) + "\r\n").utf8)
        out.reserveCapacity(out.count + bytes.count + 2)
        out.append(contentsOf: bytes)
        out.append(contentsOf: [13, 10])
        return out
    }
}
