import Foundation

extension Transcript {
    /// Token counts for one entry: the executor's cumulative totals, or the credits the
    /// session accumulated from delta token counts when no total was reported.
    public struct Usage: Sendable, Equatable, Codable {
        /// Prompt-side counts.
        public var input: LanguageModelExecutorGenerationChannel.Usage.Input
        /// Generated-side counts.
        public var output: LanguageModelExecutorGenerationChannel.Usage.Output

        /// Builds usage.
        public init(input: LanguageModelExecutorGenerationChannel.Usage.Input,
                    output: LanguageModelExecutorGenerationChannel.Usage.Output) {
            self.input = input
            self.output = output
        }
    }

    /// The model's response entry.
    public struct Response: Sendable, Equatable, Identifiable {
        /// The entry id.
        public var id: String
        /// Ids of assets the response used.
        public var assetIDs: [String]
        /// The response's content (text, structured content, attachments).
        public var segments: [Segment]
        /// Entry metadata (wholesale snapshot from the executor).
        public var metadata: [String: GeneratedContent]
        /// Token usage for the entry.
        public var usage: Usage?

        /// Builds a response entry.
        public init(id: String = UUID().uuidString, assetIDs: [String] = [], segments: [Segment]) {
            self.id = id
            self.assetIDs = assetIDs
            self.segments = segments
            metadata = [:]
            usage = nil
        }
    }

    /// The model's reasoning entry.
    public struct Reasoning: Sendable, Equatable, Identifiable {
        /// The entry id.
        public var id: String
        /// The reasoning text (possibly a summary when `signature` is set).
        public var segments: [Segment]
        /// Opaque provider bytes that authenticate the reasoning; echo back untouched.
        public var signature: Data?
        /// Entry metadata (wholesale snapshot from the executor).
        public var metadata: [String: GeneratedContent]
        /// Token usage for the entry.
        public var usage: Usage?

        /// Builds a reasoning entry.
        public init(id: String = UUID().uuidString, segments: [Segment], signature: Data? = nil) {
            self.id = id
            self.segments = segments
            self.signature = signature
            metadata = [:]
            usage = nil
        }
    }
}
