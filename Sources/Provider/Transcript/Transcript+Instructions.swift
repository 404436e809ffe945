import Foundation

extension Transcript {
    /// The instructions entry: the system prompt and the tools offered to the model.
    public struct Instructions: Sendable, Equatable, Identifiable {
        /// The entry id.
        public var id: String
        /// The instructions' content.
        public var segments: [Segment]
        /// The tools available in the session.
        public var toolDefinitions: [ToolDefinition]

        /// Builds an instructions entry.
        public init(id: String = UUID().uuidString, segments: [Segment], toolDefinitions: [ToolDefinition]) {
            self.id = id
            self.segments = segments
            self.toolDefinitions = toolDefinitions
        }
    }

    /// A prompt entry.
    public struct Prompt: Sendable, Equatable, Identifiable {
        /// The entry id.
        public var id: String
        /// The prompt's content (text and images interleaved).
        public var segments: [Segment]
        /// The options the prompt was sent with.
        public var options: GenerationOptions
        /// The structured-output format requested with the prompt, if any.
        public var responseFormat: ResponseFormat?

        /// Builds a prompt entry.
        public init(id: String = UUID().uuidString, segments: [Segment], options: GenerationOptions = GenerationOptions(),
                    responseFormat: ResponseFormat? = nil) {
            self.id = id
            self.segments = segments
            self.options = options
            self.responseFormat = responseFormat
        }
    }

    /// The structured-output format a prompt asked for.
    public struct ResponseFormat: Sendable, Equatable {
        /// What the format is, for executors to switch on. Non-frozen.
        public enum Kind: Sendable, Equatable {
            /// Output must match the schema.
            case schema(GenerationSchema)
        }

        /// The format.
        public var kind: Kind
        /// The schema's name.
        public var name: String {
            switch kind { case .schema(let s): return s.name }
        }

        /// A format requiring `schema`.
        public init(schema: GenerationSchema) { kind = .schema(schema) }

        /// A format requiring the schema of `type`.
        public init<Content: Generable>(type: Content.Type) { kind = .schema(Content.generationSchema) }
    }

    /// A tool offered to the model: its name, purpose and argument schema.
    public struct ToolDefinition: Sendable, Equatable {
        /// The tool's name.
        public var name: String
        /// What the tool does, for the model.
        public var description: String
        /// The JSON Schema of the tool's arguments.
        public var parameters: GenerationSchema

        /// Builds a definition.
        public init(name: String, description: String, parameters: GenerationSchema) {
            self.name = name
            self.description = description
            self.parameters = parameters
        }

        /// The definition of `tool`.
        public init(tool: some Tool) {
            self.init(name: tool.name, description: tool.description, parameters: tool.parameters)
        }
    }
}
