// Waiting for Ctrl-C / SIGTERM so `loom serve` can stop gracefully instead of dying mid-response.
// A classic self-pipe: the C signal handler only write(2)s the signal number (async-signal-safe)
// and a dedicated thread reads it. (Dispatch signal sources need the signal blocked in every
// thread, which a library cannot arrange after the cooperative pool has started.)
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import LoomSupport

/// The process-wide pipe signal handlers write to; created before any handler is installed.
private let signalPipe: (read: Int32, write: Int32) = {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return (-1, -1) }
    Socket.setNonBlocking(fds[1])  // a full pipe must never block inside a signal handler
    Socket.setCloseOnExec(fds[0])
    Socket.setCloseOnExec(fds[1])
    return (fds[0], fds[1])
}()

private let forwardSignal: @convention(c) (Int32) -> Void = { signal in
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalPipe.write, &byte, 1)
}

/// Delivers selected process signals (default SIGINT and SIGTERM) as async values.
/// Installing it replaces those signals' default action (terminate) for the rest of the
/// process, so the caller decides what happens: typically `await server.stop()` and exit.
///
/// ```swift
/// let signals = try SignalWaiter()
/// let port = try server.start()
/// _ = await signals.next()
/// await server.stop()
/// ```
public final class SignalWaiter: Sendable {
    /// The signals being caught.
    public let signals: [Int32]

    /// Installs the handlers now, so a signal arriving before `next()` is not lost.
    public init(_ signals: [Int32] = [SIGINT, SIGTERM]) throws(HTTPServerError) {
        guard signalPipe.read >= 0 else { throw HTTPServerError(operation: "pipe", reason: Socket.errorText()) }
        self.signals = signals
        for s in signals { signal(s, forwardSignal) }
    }

    /// Suspends until one of the signals arrives and returns its number. The wait happens on a
    /// dedicated thread, never on the cooperative pool.
    public func next() async -> Int32 {
        let signals = self.signals
        // -1 when the wait fails, or when no thread can be created to wait on.
        let received = try? await DedicatedThread.run { () -> Int32 in
            // Threads started from the cooperative pool inherit dispatch's all-blocked mask;
            // unblocking here guarantees some thread accepts a process-directed signal
            // (one already pending is delivered the moment this runs).
            var set = sigset_t()
            sigemptyset(&set)
            for s in signals { sigaddset(&set, s) }
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            var byte: UInt8 = 0
            while true {
                let n = read(signalPipe.read, &byte, 1)
                if n == 1 { return Int32(byte) }
                if n < 0 && errno == EINTR { continue }
                return -1
            }
        }
        return received ?? -1
    }
}
