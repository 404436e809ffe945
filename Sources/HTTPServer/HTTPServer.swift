// The listening side: bind, an accept thread, one blocking I/O thread per connection, and a
// graceful stop. Handlers run as Tasks; sockets are only ever touched by dedicated threads, so
// blocking reads and writes never occupy the cooperative pool.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LoomSupport

/// An HTTP/1.1 server on POSIX sockets: keep-alive, chunked streaming (SSE), size limits,
/// a `parallel` + `queue` concurrency gate with 429s, per-request timeouts, client-disconnect
/// cancellation. The router decides who may call it (`authorizer`) and how the server's own
/// refusals look (`refusalRenderer`).
///
/// ```swift
/// var router = HTTPRouter()
/// router.add("GET", "/health", limited: false, isPublic: true) { _ in .json(["status": "ok"]) }
/// let server = HTTPServer(configuration: .init(port: 0), router: router)
/// let port = try server.start()
/// …
/// await server.stop()
/// ```
public final class HTTPServer: Sendable {
    /// The settings the server was created with.
    public let configuration: HTTPServerConfiguration
    let router: HTTPRouter
    let admission: AdmissionControl
    let state = Locked(ServerState())
    let accessLog: (@Sendable (HTTPAccessRecord) -> Void)?

    /// Creates a server; nothing is bound until `start()`. `accessLog`, when given, is called
    /// on the connection's thread after every request (keep it quick and non-blocking).
    public init(configuration: HTTPServerConfiguration, router: HTTPRouter,
                accessLog: (@Sendable (HTTPAccessRecord) -> Void)? = nil) {
        self.configuration = configuration
        self.router = router
        self.accessLog = accessLog
        self.admission = AdmissionControl(parallel: configuration.parallel, queue: configuration.queue)
    }

    /// The bound port (useful with port 0), or 0 before `start()`.
    public var port: UInt16 { state.withLock { $0.port } }

    /// Requests currently running on limited routes.
    public var inFlight: Int { admission.inFlight }

    /// Requests currently waiting for a slot on limited routes.
    public var queued: Int { admission.queued }

    /// Binds, listens and starts accepting on a background thread. Returns the bound port.
    @discardableResult
    public func start() throws(HTTPServerError) -> UInt16 {
        let alreadyStarted = state.withLock { s -> Bool in
            if s.started { return true }
            s.started = true
            return false
        }
        guard !alreadyStarted else { throw HTTPServerError(operation: "start", reason: "server was already started") }
        let stopPipe = try WakePipe()
        let (fd, port): (Int32, UInt16)
        do {
            (fd, port) = try Socket.openListener(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        } catch {
            stopPipe.closeBoth()
            throw error
        }
        state.withLock {
            $0.port = port
            $0.stopPipe = stopPipe
            $0.acceptRunning = true
        }
        guard DedicatedThread.start({ [self] in acceptLoop(listenFD: fd, stopPipe: stopPipe) }) else {
            close(fd)
            stopPipe.closeBoth()
            state.withLock {
                $0.acceptRunning = false
                $0.stopPipe = nil
            }
            throw HTTPServerError(operation: "start", reason: "could not create the accept thread")
        }
        return port
    }

    /// Stops accepting, lets in-flight requests finish for up to `gracePeriod`, then cancels
    /// the rest and closes every connection. Returns once every connection thread has exited.
    public func stop(gracePeriod: Duration = .seconds(5)) async {
        let pipe = state.withLock { s -> WakePipe? in
            guard !s.stopping else { return nil }
            s.stopping = true
            return s.stopPipe
        }
        guard let pipe else { return }
        // The stop pipe is never drained: once written it stays readable, which is a broadcast
        // to the accept thread and to every idle connection.
        pipe.wake()
        let deadline = ContinuousClock.now + gracePeriod
        while !state.withLock({ $0.connections.isEmpty && !$0.acceptRunning }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        state.withLock { s in
            for fd in s.connections.values { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        while !state.withLock({ $0.connections.isEmpty && !$0.acceptRunning }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        pipe.closeBoth()
    }

    /// Whether `stop()` has begun: new connections are refused and keep-alive ends.
    public var isStopping: Bool { state.withLock { $0.stopping } }

    // MARK: - Draining

    /// The `Retry-After` seconds of the 503 a draining server answers on limited routes.
    public static let drainingRetryAfterSeconds = 1

    /// Whether `beginDraining()` has been called.
    public var isDraining: Bool { admission.isDraining }

    /// Stops taking work without closing the door: limited routes answer 503 with `Retry-After`
    /// (every request waiting in the queue at once, and every new one), keep-alive ends, and
    /// requests already running carry on. Unlimited routes (health checks, metrics) still answer,
    /// so a load balancer sees the instance go unhealthy instead of unreachable. Idempotent.
    public func beginDraining() {
        admission.drain()
    }

    /// Drains (`beginDraining()`), waits until no request runs on a limited route or `timeout`
    /// passes, then stops within what is left of `timeout`: responses being written finish, and
    /// once the time is up what is still running is cancelled and every connection closed. A
    /// concurrent `stop()` (a second signal) ends the wait at once.
    public func drain(timeout: Duration) async {
        beginDraining()
        let deadline = ContinuousClock.now + timeout
        while admission.inFlight > 0, !isStopping, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        // A request leaves the admission count when its handler returns, before its response is
        // written: the rest of the deadline is the stop's grace period, so those responses go
        // out whole (their connections close themselves; idle ones are woken and close).
        let remaining = deadline - ContinuousClock.now
        await stop(gracePeriod: remaining > .zero ? remaining : .zero)
    }

    private func acceptLoop(listenFD: Int32, stopPipe: WakePipe) {
        var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stopPipe.readEnd, events: Int16(POLLIN), revents: 0)]
        while true {
            fds[0].revents = 0
            fds[1].revents = 0
            if Socket.poll(&fds, deadline: nil) < 0 { break }
            if fds[1].revents != 0 { break }
            if fds[0].revents == 0 { continue }
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                // Out of descriptors: back off instead of spinning on a permanently readable socket.
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM { usleep(10_000) }
                continue
            }
            // BSD sockets inherit O_NONBLOCK from the listener; connection I/O is blocking.
            _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL, 0) & ~O_NONBLOCK)
            Socket.configureConnection(client, sendTimeout: configuration.sendTimeout)
            guard let id = state.withLock({ $0.register(client, limit: configuration.maxConnections) }) else {
                let busy = router.refusalRenderer(HTTPServerRefusal(status: 503, reason: .tooManyConnections, message: "Too many open connections"))
                _ = Socket.sendAll(client, HTTPConnection.serialize(busy, body: busy.fullBody, keepAlive: false, chunked: false))
                close(client)
                continue
            }
            let connection = HTTPConnection(fd: client, id: id, server: self, stopPipe: stopPipe)
            if !DedicatedThread.start({ connection.run() }) {
                // No thread for it: closed at once, as if the client had left.
                state.withLock { _ = $0.connections.removeValue(forKey: id) }
                close(client)
            }
        }
        close(listenFD)
        state.withLock { $0.acceptRunning = false }
    }
}

/// Mutable server bookkeeping, kept in the server's one lock.
struct ServerState {
    var started = false
    var stopping = false
    var acceptRunning = false
    var port: UInt16 = 0
    var stopPipe: WakePipe?
    var nextID = 0
    var connections: [Int: Int32] = [:]

    mutating func register(_ fd: Int32, limit: Int) -> Int? {
        guard connections.count < limit else { return nil }
        nextID += 1
        connections[nextID] = fd
        return nextID
    }
}

extension HTTPResponse {
    var fullBody: [UInt8] {
        if case .full(let b) = body { return b }
        return []
    }
}
