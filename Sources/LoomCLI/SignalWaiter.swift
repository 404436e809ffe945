// Waiting for Ctrl-C / SIGTERM so `loom serve` can stop gracefully instead of dying mid-response.
// Process-wide signal handling belongs to the program, not to a library: it lives here, in `loom`.
// A classic self-pipe: the C signal handler only write(2)s the signal number (async-signal-safe)
// and a dedicated thread reads it. (Dispatch signal sources need the signal blocked in every
// thread, which cannot be arranged once the cooperative pool's threads have started.)
import Foundation
import LoomSupport

/// The process-wide pipe signal handlers write to; created before any handler is installed.
private let signalPipe: (read: Int32, write: Int32) = {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return (-1, -1) }
    // A full pipe must never block inside a signal handler.
    _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL, 0) | O_NONBLOCK)
    for fd in fds { _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD, 0) | FD_CLOEXEC) }
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
final class SignalWaiter: Sendable {
    /// The signals being caught.
    let signals: [Int32]

    /// Installs the handlers now, so a signal arriving before `next()` is not lost.
    /// - Throws: `SignalWaiterError` when the pipe the handlers write to could not be created.
    init(_ signals: [Int32] = [SIGINT, SIGTERM]) throws(SignalWaiterError) {
        guard signalPipe.read >= 0 else { throw SignalWaiterError(reason: String(cString: strerror(errno))) }
        self.signals = signals
        for s in signals { signal(s, forwardSignal) }
    }

    /// Suspends until one of the signals arrives and returns its number. The wait happens on a
    /// dedicated thread, never on the cooperative pool.
    func next() async -> Int32 {
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
