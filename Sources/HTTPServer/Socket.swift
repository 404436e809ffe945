// Thin POSIX socket helpers: the only place that talks to the C socket API, so the rest of the
// server reads as HTTP, not as errno handling.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

enum Socket {
    #if canImport(Glibc)
    static let streamType = Int32(SOCK_STREAM.rawValue)
    /// Linux reports the peer's FIN as POLLRDHUP even while unread request bytes are queued, which
    /// is what lets a generation notice that its client went away. Glibc hides the macro behind
    /// _GNU_SOURCE, so its value (asm-generic/poll.h) is spelled out.
    static let pollPeerClosed: Int16 = 0x2000
    static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    static let streamType = SOCK_STREAM
    static let pollPeerClosed: Int16 = 0
    static let sendFlags: Int32 = 0
    #endif

    static func errorText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

    /// Binds and listens on `host:port` (numeric or resolvable host); returns the fd and bound port.
    static func openListener(host: String, port: UInt16, backlog: Int32) throws(HTTPServerError) -> (Int32, UInt16) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = streamType
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let where_ = "\(host):\(port)"
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw HTTPServerError(operation: "resolve \(where_)", reason: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let ai = entry {
            entry = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, streamType, 0)
            if fd < 0 { lastError = errorText(); continue }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            setCloseOnExec(fd)
            if bind(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) != 0 || listen(fd, backlog) != 0 {
                lastError = errorText()
                close(fd)
                continue
            }
            setNonBlocking(fd)
            return (fd, boundPort(fd))
        }
        throw HTTPServerError(operation: "bind \(where_)", reason: lastError)
    }

    static func boundPort(_ fd: Int32) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        } == 0
        guard ok else { return 0 }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        default: return 0
        }
    }

    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL, 0)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    static func setCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFD, 0)
        _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC)
    }

    /// Per-connection options: no Nagle delay (each SSE event should leave at once) and a send
    /// timeout so a client that stops reading cannot pin a connection thread forever.
    static func configureConnection(_ fd: Int32, sendTimeout: Duration) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let (seconds, attoseconds) = sendTimeout.components
        var tv = timeval(tv_sec: Int(max(0, seconds)), tv_usec: .init(attoseconds / 1_000_000_000_000))
        if tv.tv_sec == 0 && tv.tv_usec == 0 { tv.tv_usec = 1000 }
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setCloseOnExec(fd)
    }

    /// Writes every byte or reports failure (peer reset, send timeout); never raises SIGPIPE.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw -> Bool in
            guard var p = raw.baseAddress else { return true }
            var remaining = raw.count
            while remaining > 0 {
                let n = send(fd, p, remaining, sendFlags)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                if n == 0 { return false }
                p += n
                remaining -= n
            }
            return true
        }
    }

    /// Milliseconds until `deadline` for poll(2), clamped to [0, Int32.max]; -1 when there is none.
    static func pollTimeout(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let left = ContinuousClock.now.duration(to: deadline)
        if left <= .zero { return 0 }
        let (s, atto) = left.components
        let ms = s * 1000 + atto / 1_000_000_000_000_000 + 1
        return Int32(clamping: ms)
    }

    /// poll(2) that retries on EINTR; returns the number of ready descriptors (0 on timeout).
    static func poll(_ fds: inout [pollfd], deadline: ContinuousClock.Instant?) -> Int32 {
        while true {
            let timeout = pollTimeout(until: deadline)
            #if canImport(Glibc)
            let rc = Glibc.poll(&fds, nfds_t(fds.count), timeout)
            #else
            let rc = Darwin.poll(&fds, nfds_t(fds.count), timeout)
            #endif
            if rc < 0 && errno == EINTR { continue }
            return rc
        }
    }
}

/// A self-pipe (as a socketpair): writing a byte wakes a thread blocked in poll(2) on the read end.
final class WakePipe: @unchecked Sendable {
    // @unchecked: the two descriptors are immutable after init; closing is done once by the owner
    // after every writer has been fenced off (see ResponseExchange.close).
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(HTTPServerError) {
        // A socketpair rather than pipe(2): send(MSG_NOSIGNAL) can never raise SIGPIPE, even if
        // a bug elsewhere closed the read end.
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Socket.streamType, 0, &fds) == 0 else {
            throw HTTPServerError(operation: "socketpair", reason: Socket.errorText())
        }
        readEnd = fds[0]
        writeEnd = fds[1]
        for fd in fds {
            Socket.setNonBlocking(fd)
            Socket.setCloseOnExec(fd)
        }
    }

    /// Wakes the reader; a full pipe already means "readable", so EAGAIN is fine.
    func wake() {
        var byte: UInt8 = 1
        _ = send(writeEnd, &byte, 1, Socket.sendFlags)
    }

    /// Empties the pipe so the next poll blocks again.
    func drain() {
        var scratch = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &scratch, scratch.count) > 0 {}
    }

    func closeBoth() {
        close(readEnd)
        close(writeEnd)
    }
}
