// The one error type of server start-up: which system call failed and why.

/// A socket-level failure while starting the server, with the failing call and `errno` text.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// What the server was doing (e.g. `bind 127.0.0.1:8080`).
    public let operation: String
    /// The system's explanation (`strerror(errno)` or the resolver's message).
    public let reason: String
    /// `operation: reason`.
    public var description: String { "\(operation): \(reason)" }
}
