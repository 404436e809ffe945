import Foundation

extension LanguageModelSession {
    /// The session was driven incorrectly (a programmer error). Non-frozen.
    public enum Error: Swift.Error, LocalizedError, Equatable, Hashable, Sendable {
        /// A request was made while another was in progress on the same session.
        case concurrentRequests
        /// The transcript was mutated while a request was in progress; the request's entries
        /// were not committed.
        case transcriptMutationWhileResponding

        /// Apple's description of the case.
        public var errorDescription: String? {
            switch self {
            case .concurrentRequests: return "Multiple requests were made to the session concurrently"
            case .transcriptMutationWhileResponding:
                return "The session's transcript was mutated while a request was in progress"
            }
        }
    }

    /// A tool's `call(arguments:)` threw (or its arguments could not be parsed).
    public struct ToolCallError: Swift.Error, LocalizedError, Sendable {
        /// The tool that failed.
        public var tool: any Tool
        /// What the tool threw.
        public var underlyingError: any Swift.Error

        /// Wraps a tool's error.
        public init(tool: any Tool, underlyingError: any Swift.Error) {
            self.tool = tool
            self.underlyingError = underlyingError
        }

        /// Names the tool and its error.
        public var errorDescription: String? { "Tool '\(tool.name)' failed: \(underlyingError)" }
    }

    /// The tool-calling loop could not continue. A Loom addition: Apple's framework does not
    /// document how it bounds the loop or handles calls to unknown tools.
    public enum ToolLoopError: Swift.Error, LocalizedError, Equatable, Sendable {
        /// The model kept calling tools for more than `limit` steps in one turn.
        case stepLimitExceeded(limit: Int)
        /// The model called a tool the session does not have.
        case unknownTool(name: String)
        /// A tool call ran past the session's `toolCallTimeout` and was cancelled (arrives as the
        /// `underlyingError` of a `ToolCallError`).
        case toolCallTimedOut(name: String, timeout: Duration)

        /// What happened.
        public var errorDescription: String? {
            switch self {
            case .stepLimitExceeded(let limit):
                return "The model was still calling tools after \(limit) steps; the turn was stopped."
            case .unknownTool(let name): return "The model called '\(name)', which is not one of the session's tools."
            case .toolCallTimedOut(let name, let timeout):
                return "The tool '\(name)' did not finish within \(timeout); it was cancelled."
            }
        }
    }
}

/// What the session does with the transcript when a request fails.
public struct TranscriptErrorHandlingPolicy: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case revert, preserve }
    let kind: Kind

    /// Restore the transcript to its state just before the failed request (the default).
    public static let revertTranscript = TranscriptErrorHandlingPolicy(kind: .revert)
    /// Keep what was generated; the last entry may be partial.
    public static let preserveTranscript = TranscriptErrorHandlingPolicy(kind: .preserve)
}
