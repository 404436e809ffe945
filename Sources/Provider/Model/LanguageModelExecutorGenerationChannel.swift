import Foundation

/// The stream an executor sends its output into, one event per delta, as it is produced.
///
/// The session assembles events into transcript entries: events with the same `entryID`
/// build one entry (so interleaved reasoning and response text with stable ids become one
/// entry each), the first event for an id opens the entry, and usage/metadata updates
/// replace earlier values wholesale. Executors never buffer: send each delta immediately.
///
/// Tests of executors can record events with `LanguageModelExecutorGenerationChannel { event in … }`;
/// events are not `Equatable` — match on `event.kind.storage` to recover the typed payload.
public final class LanguageModelExecutorGenerationChannel: Sendable {
    private let handler: @Sendable (Event) async -> Void

    /// A channel that hands every sent event to `handler`, in order.
    public init(_ handler: @escaping @Sendable (Event) async -> Void) {
        self.handler = handler
    }

    /// Sends one event; returns once the receiver has taken it.
    public func send(_ event: Event) async {
        await handler(event)
    }
}

extension LanguageModelExecutorGenerationChannel {
    /// Metadata values executors attach to entries and tool calls.
    public typealias Metadata = [String: any Sendable & Codable & Equatable]

    /// Token counts, reported as cumulative totals.
    public enum Usage {
        /// Prompt-side counts.
        public struct Input: Sendable, Equatable, Codable {
            /// Tokens in the prompt (the whole rendered transcript).
            public var totalTokenCount: Int
            /// Prompt tokens served from a cache (prefix reuse).
            public var cachedTokenCount: Int

            /// Builds input counts.
            public init(totalTokenCount: Int = 0, cachedTokenCount: Int = 0) {
                self.totalTokenCount = totalTokenCount
                self.cachedTokenCount = cachedTokenCount
            }
        }

        /// Generated-side counts.
        public struct Output: Sendable, Equatable, Codable {
            /// Tokens generated (including reasoning tokens).
            public var totalTokenCount: Int
            /// Of those, tokens spent reasoning.
            public var reasoningTokenCount: Int

            /// Builds output counts.
            public init(totalTokenCount: Int = 0, reasoningTokenCount: Int = 0) {
                self.totalTokenCount = totalTokenCount
                self.reasoningTokenCount = reasoningTokenCount
            }
        }
    }

    /// One delta from an executor. Build with `.response(entryID:action:)`,
    /// `.reasoning(entryID:action:)` or `.toolCalls(entryID:action:)`.
    public struct Event: Sendable {
        /// The event's payload, for inspection.
        public var kind: Kind

        /// The event's payload, for inspection.
        public struct Kind: Sendable {
            /// The typed payload.
            public var storage: Storage
        }

        /// The typed payload. Non-frozen.
        public enum Storage: Sendable {
            /// A response-entry event.
            case response(Response)
            /// A reasoning-entry event.
            case reasoning(Reasoning)
            /// A tool-calls-entry event.
            case toolCalls(ToolCalls)
        }

        /// An event for the response entry `entryID`.
        public static func response(entryID: String, action: Response.Action) -> Event {
            Event(kind: Kind(storage: .response(Response(entryID: entryID, action: action))))
        }

        /// An event for a reasoning entry; nil `entryID` continues the trailing reasoning entry
        /// when the previous event was reasoning, and opens a new one otherwise.
        public static func reasoning(entryID: String?, action: Reasoning.Action) -> Event {
            Event(kind: Kind(storage: .reasoning(Reasoning(entryID: entryID, action: action))))
        }

        /// An event for the tool-calls entry `entryID` (distinct from the response entry's id).
        public static func toolCalls(entryID: String, action: ToolCalls.Action) -> Event {
            Event(kind: Kind(storage: .toolCalls(ToolCalls(entryID: entryID, action: action))))
        }

        /// A response-entry event.
        public struct Response: Sendable {
            /// The entry the event belongs to.
            public var entryID: String
            /// The mutation.
            public var action: Action

            /// A mutation of a response entry. Non-frozen.
            public enum Action: Sendable {
                /// Appends text to the segment `segmentID` (nil: the entry's current text
                /// segment), crediting `tokenCount` generated tokens.
                case appendText(String, segmentID: String? = nil, tokenCount: Int)
                /// Replaces the text of segment `segmentID` (nil: the current text segment).
                case replaceTextSegment(String, segmentID: String? = nil, tokenCount: Int)
                /// Adds an attachment segment (never replaces one with the same id).
                case addAttachmentSegment(Transcript.AttachmentSegment)
                /// Removes a previously added attachment segment (matched by id).
                case removeAttachmentSegment(Transcript.AttachmentSegment)
                /// Replaces the entry's metadata wholesale.
                case updateMetadata(Metadata)
                /// Replaces the entry's usage totals wholesale (cumulative, not deltas).
                case updateUsage(input: Usage.Input, output: Usage.Output,
                                 metadata: [String: any ConvertibleToGeneratedContent] = [:])

                /// Removes the attachment with `id` (the beta 1 spelling).
                @available(*, deprecated, message: "Pass the Transcript.AttachmentSegment to remove")
                public static func removeAttachmentSegment(id: String) -> Action {
                    .removeAttachmentSegment(Transcript.AttachmentSegment(id: id, content: .image(.init(url: URL(fileURLWithPath: "/")))))
                }
            }
        }

        /// A reasoning-entry event.
        public struct Reasoning: Sendable {
            /// The entry the event belongs to; nil continues the trailing reasoning entry.
            public var entryID: String?
            /// The mutation.
            public var action: Action

            /// A mutation of a reasoning entry. Non-frozen.
            public enum Action: Sendable {
                /// Appends reasoning text, crediting `tokenCount` reasoning tokens.
                case appendText(String, segmentID: String? = nil, tokenCount: Int)
                /// Replaces the current (or `segmentID`) reasoning text segment.
                case replaceTextSegment(String, segmentID: String? = nil, tokenCount: Int)
                /// Replaces the entry's signature bytes wholesale.
                case updateSignature(Data, tokenCount: Int)
                /// Replaces the entry's metadata wholesale.
                case updateMetadata(Metadata)
                /// Replaces the entry's usage totals wholesale.
                case updateUsage(input: Usage.Input, output: Usage.Output,
                                 metadata: [String: any ConvertibleToGeneratedContent] = [:])
            }
        }

        /// A tool-calls-entry event.
        public struct ToolCalls: Sendable {
            /// The entry the event belongs to.
            public var entryID: String
            /// The mutation.
            public var action: Action

            /// A mutation of a tool-calls entry. Non-frozen.
            public enum Action: Sendable {
                /// A per-call mutation; the first event for an `id` opens the call. Every
                /// event carries the tool's `name`.
                case toolCall(id: String, name: String, action: ToolCall.Action)
                /// Drops a call the model retracted (matched by id).
                case removeToolCall(Transcript.ToolCall)
                /// Replaces the entry's metadata wholesale.
                case updateMetadata(Metadata)
                /// Replaces the entry's usage totals wholesale.
                case updateUsage(input: Usage.Input, output: Usage.Output,
                                 metadata: [String: any ConvertibleToGeneratedContent] = [:])

                /// Drops the call with `id` (the beta 1 spelling).
                @available(*, deprecated, message: "Pass the Transcript.ToolCall to remove")
                public static func removeToolCall(id: String) -> Action {
                    .removeToolCall(Transcript.ToolCall(id: id, toolName: "", arguments: GeneratedContent(jsonValue: .null)))
                }
            }
        }

        /// Per-call payloads of `.toolCall(id:name:action:)`.
        public enum ToolCall {
            /// A mutation of one tool call. Non-frozen.
            public enum Action: Sendable {
                /// Appends argument JSON text, crediting `tokenCount` tokens.
                case appendArguments(String, tokenCount: Int)
                /// Replaces the call's metadata wholesale (send before the first arguments).
                case updateMetadata(Metadata)
            }
        }
    }
}
