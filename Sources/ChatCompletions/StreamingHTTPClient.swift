// An HTTP client that hands out response bytes as they arrive, on Linux too.
//
// Measured on this toolchain (Swift 6.3.1, swift-corelibs-foundation over libcurl):
// `URLSession.bytes(for:)` does not exist, and `data(for:)` returns only at the end — the
// upstream ChatCompletions model's "streaming" therefore arrives all at once. A data task
// with a `URLSessionDataDelegate`, however, receives `didReceive data` per network read
// (a Python server sending one event every 500 ms produced callbacks 500 ms apart). So the
// delegate path is used for http and https alike and bridged into an AsyncThrowingStream.
import Foundation
import LoomSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends HTTP requests and returns as soon as the response head arrives; the body follows as
/// an async stream of chunks. One client shares one URLSession (and its connection pool).
///
/// ```swift
/// let client = StreamingHTTPClient()
/// let response = try await client.send(request)
/// guard response.isSuccess else { let envelope = try await response.collectBody(); … }
/// for try await event in response.events() { if event.isDone { break } … }
/// ```
public final class StreamingHTTPClient: Sendable {
    private let session: URLSession
    private let delegate: StreamingSessionDelegate

    /// Creates a client. Timeouts, proxies and TLS settings come from `configuration`.
    /// On Linux `timeoutIntervalForRequest` bounds the wait *between* bytes (measured: a 3.2 s
    /// stream with an event every 0.4 s completes under a 1 s setting), so long generations
    /// are not cut off; `timeoutIntervalForResource` bounds the whole transfer.
    public init(configuration: URLSessionConfiguration = .default) {
        let delegate = StreamingSessionDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1  // callbacks in order: head, chunks, completion
        queue.name = "loom.chat-completions.http"
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        // The session retains its delegate until invalidated; running transfers may finish.
        session.finishTasksAndInvalidate()
    }

    /// Sends `request` and returns once the status and headers are known. Cancelling the
    /// calling task before then cancels the request; afterwards, stopping consumption of
    /// `body` (task cancellation or dropping the response) closes the connection.
    public func send(_ request: URLRequest) async throws -> StreamingHTTPResponse {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw StreamingHTTPError.unsupportedURL(request.url?.absoluteString ?? "")
        }
        try Task.checkCancellation()
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let task = session.dataTask(with: request)
        let handle = TaskHandle(task)
        continuation.onTermination = { termination in
            if case .cancelled = termination { handle.cancel() }
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (head: CheckedContinuation<StreamingHTTPResponse, any Error>) in
                    delegate.register(task.taskIdentifier, head: head, body: continuation, stream: stream)
                    task.resume()
                }
            } onCancel: {
                handle.cancel()
            }
        } catch StreamingHTTPError.cancelled where Task.isCancelled {
            throw CancellationError()
        }
    }

    /// Cancels running transfers and releases the session; the client is unusable afterwards.
    public func invalidate() {
        session.invalidateAndCancel()
    }
}

/// Lets @Sendable closures cancel a URLSessionTask.
private final class TaskHandle: @unchecked Sendable {
    // @unchecked: URLSessionTask.cancel() is documented thread-safe; the reference is immutable.
    private let task: URLSessionTask
    init(_ task: URLSessionTask) { self.task = task }
    func cancel() { task.cancel() }
}

/// Routes URLSession callbacks to the waiting `send` call and its body stream.
final class StreamingSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: only because NSObject is not Sendable; the one mutable field, `entries`, is a
    // `Locked`, and callbacks arrive on one serial queue.
    private struct Entry {
        var head: CheckedContinuation<StreamingHTTPResponse, any Error>?
        let body: AsyncThrowingStream<[UInt8], any Error>.Continuation
        /// Held only until the head is delivered: afterwards the response owns the stream, so
        /// dropping the response can terminate it (and cancel the transfer).
        var stream: AsyncThrowingStream<[UInt8], any Error>?
    }

    private let entries = Locked<[Int: Entry]>([:])

    func register(_ id: Int, head: CheckedContinuation<StreamingHTTPResponse, any Error>,
                  body: AsyncThrowingStream<[UInt8], any Error>.Continuation, stream: AsyncThrowingStream<[UInt8], any Error>) {
        entries.withLock { $0[id] = Entry(head: head, body: body, stream: stream) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let id = dataTask.taskIdentifier
        let (head, stream) = entries.withLock { entries -> (CheckedContinuation<StreamingHTTPResponse, any Error>?, AsyncThrowingStream<[UInt8], any Error>?) in
            let h = entries[id]?.head
            let s = entries[id]?.stream
            entries[id]?.head = nil
            entries[id]?.stream = nil
            return (h, s)
        }
        guard let http = response as? HTTPURLResponse, let stream else {
            head?.resume(throwing: StreamingHTTPError.notHTTPResponse)
            completionHandler(.cancel)
            return
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let k = key as? String, let v = value as? String { headers[k] = v }
        }
        head?.resume(returning: StreamingHTTPResponse(statusCode: http.statusCode, headers: headers, url: http.url, body: stream))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let body = entries.withLock { $0[id]?.body }
        body?.yield([UInt8](data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        guard let entry = entries.withLock({ $0.removeValue(forKey: id) }) else { return }
        if let error {
            let mapped = Self.map(error)
            entry.head?.resume(throwing: mapped)
            entry.body.finish(throwing: mapped)
        } else {
            entry.head?.resume(throwing: StreamingHTTPError.notHTTPResponse)
            entry.body.finish()
        }
    }

    /// URLError codes → StreamingHTTPError. (`send` turns `.cancelled` into CancellationError
    /// when the caller's task was cancelled, the Swift convention.)
    static func map(_ error: any Error) -> any Error {
        let ns = error as NSError
        guard ns.domain == NSURLErrorDomain else { return StreamingHTTPError.transport(code: ns.code, description: ns.localizedDescription) }
        switch ns.code {
        case NSURLErrorTimedOut: return StreamingHTTPError.timedOut
        case NSURLErrorCancelled: return StreamingHTTPError.cancelled
        default: return StreamingHTTPError.transport(code: ns.code, description: ns.localizedDescription)
        }
    }
}
