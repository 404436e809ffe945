import Foundation
import LoomJSON

// Transcripts persist through any Encoder. Generated content and schemas are stored as JSON
// text, not as nested containers, because decoders such as JSONDecoder do not report object
// members in document order; text keeps tool arguments and schemas exactly as generated.

/// Generated content stored as its JSON text.
struct ContentText: Codable {
    var content: GeneratedContent
    init(_ content: GeneratedContent) { self.content = content }
    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        content = try GeneratedContent(json: text)
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(content.jsonString)
    }
}

/// A schema stored as its JSON text.
struct SchemaText: Codable {
    var schema: GenerationSchema
    init(_ schema: GenerationSchema) { self.schema = schema }
    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        schema = try GenerationSchema(jsonSchema: text)
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(schema.jsonString)
    }
}

private func encodeMetadata(_ m: [String: GeneratedContent]) -> [String: ContentText] { m.mapValues(ContentText.init) }
private func decodeMetadata(_ m: [String: ContentText]?) -> [String: GeneratedContent] { (m ?? [:]).mapValues(\.content) }

extension GeneratedContent: Codable {
    /// Decodes a JSON value (or JSON text in a string is taken as a string value).
    public init(from decoder: any Decoder) throws {
        self.init(jsonValue: try JSONValueCoding(from: decoder).value)
    }
    /// Encodes the JSON value.
    public func encode(to encoder: any Encoder) throws {
        try JSONValueCoding(jsonValue).encode(to: encoder)
    }
}

extension Transcript: Codable {
    private enum CodingKeys: String, CodingKey { case entries }
    /// Decodes a transcript written by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        entries = try c.decode([Entry].self, forKey: .entries)
    }
    /// Encodes every entry, losslessly.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entries, forKey: .entries)
    }
}

extension Transcript.Entry: Codable {
    private enum CodingKeys: String, CodingKey { case type, value }
    private enum Kind: String, Codable { case instructions, prompt, toolCalls, toolOutput, response, reasoning }

    /// Decodes a tagged entry.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(Kind.self, forKey: .type) {
        case .instructions: self = .instructions(try c.decode(Transcript.Instructions.self, forKey: .value))
        case .prompt: self = .prompt(try c.decode(Transcript.Prompt.self, forKey: .value))
        case .toolCalls: self = .toolCalls(try c.decode(Transcript.ToolCalls.self, forKey: .value))
        case .toolOutput: self = .toolOutput(try c.decode(Transcript.ToolOutput.self, forKey: .value))
        case .response: self = .response(try c.decode(Transcript.Response.self, forKey: .value))
        case .reasoning: self = .reasoning(try c.decode(Transcript.Reasoning.self, forKey: .value))
        }
    }

    /// Encodes the entry with a `type` tag.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .instructions(let e): try c.encode(Kind.instructions, forKey: .type); try c.encode(e, forKey: .value)
        case .prompt(let e): try c.encode(Kind.prompt, forKey: .type); try c.encode(e, forKey: .value)
        case .toolCalls(let e): try c.encode(Kind.toolCalls, forKey: .type); try c.encode(e, forKey: .value)
        case .toolOutput(let e): try c.encode(Kind.toolOutput, forKey: .type); try c.encode(e, forKey: .value)
        case .response(let e): try c.encode(Kind.response, forKey: .type); try c.encode(e, forKey: .value)
        case .reasoning(let e): try c.encode(Kind.reasoning, forKey: .type); try c.encode(e, forKey: .value)
        }
    }
}

extension Transcript.Segment: Codable {
    private enum CodingKeys: String, CodingKey { case text, structure, attachment }
    /// Decodes a segment.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let t = try c.decodeIfPresent(Transcript.TextSegment.self, forKey: .text) { self = .text(t); return }
        if let s = try c.decodeIfPresent(Transcript.StructuredSegment.self, forKey: .structure) { self = .structure(s); return }
        self = .attachment(try c.decode(Transcript.AttachmentSegment.self, forKey: .attachment))
    }
    /// Encodes the segment under its kind.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .text(let t): try c.encode(t, forKey: .text)
        case .structure(let s): try c.encode(s, forKey: .structure)
        case .attachment(let a): try c.encode(a, forKey: .attachment)
        }
    }
}

extension Transcript.StructuredSegment: Codable {
    private enum CodingKeys: String, CodingKey { case id, source, content }
    /// Decodes a structured segment.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), source: try c.decode(String.self, forKey: .source),
                  content: try c.decode(ContentText.self, forKey: .content).content)
    }
    /// Encodes the segment; content as JSON text.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(source, forKey: .source)
        try c.encode(ContentText(content), forKey: .content)
    }
}

extension Transcript.Instructions: Codable {
    private enum CodingKeys: String, CodingKey { case id, segments, toolDefinitions }
    /// Decodes an instructions entry.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), segments: try c.decode([Transcript.Segment].self, forKey: .segments),
                  toolDefinitions: try c.decode([Transcript.ToolDefinition].self, forKey: .toolDefinitions))
    }
    /// Encodes the entry.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(segments, forKey: .segments)
        try c.encode(toolDefinitions, forKey: .toolDefinitions)
    }
}

extension Transcript.ToolDefinition: Codable {
    private enum CodingKeys: String, CodingKey { case name, description, parameters }
    /// Decodes a definition.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try c.decode(String.self, forKey: .name), description: try c.decode(String.self, forKey: .description),
                  parameters: try c.decode(SchemaText.self, forKey: .parameters).schema)
    }
    /// Encodes the definition; the schema as JSON text.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(description, forKey: .description)
        try c.encode(SchemaText(parameters), forKey: .parameters)
    }
}

extension Transcript.Prompt: Codable {
    private enum CodingKeys: String, CodingKey { case id, segments, options, responseFormat }
    /// Decodes a prompt entry.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), segments: try c.decode([Transcript.Segment].self, forKey: .segments),
                  options: try c.decodeIfPresent(GenerationOptions.self, forKey: .options) ?? GenerationOptions(),
                  responseFormat: try c.decodeIfPresent(SchemaText.self, forKey: .responseFormat)
                      .map { Transcript.ResponseFormat(schema: $0.schema) })
    }
    /// Encodes the entry; a response format as its schema text.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(segments, forKey: .segments)
        try c.encode(options, forKey: .options)
        if case .schema(let schema)? = responseFormat?.kind { try c.encode(SchemaText(schema), forKey: .responseFormat) }
    }
}

extension Transcript.ToolCall: Codable {
    private enum CodingKeys: String, CodingKey { case id, toolName, arguments, metadata }
    /// Decodes a call.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), toolName: try c.decode(String.self, forKey: .toolName),
                  arguments: try c.decode(ContentText.self, forKey: .arguments).content,
                  metadata: decodeMetadata(try c.decodeIfPresent([String: ContentText].self, forKey: .metadata)))
    }
    /// Encodes the call; arguments as JSON text.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(toolName, forKey: .toolName)
        try c.encode(ContentText(arguments), forKey: .arguments)
        if !metadata.isEmpty { try c.encode(encodeMetadata(metadata), forKey: .metadata) }
    }
}

extension Transcript.ToolCalls: Codable {
    private enum CodingKeys: String, CodingKey { case id, calls, metadata, usage }
    /// Decodes a tool-calls entry.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), try c.decode([Transcript.ToolCall].self, forKey: .calls))
        metadata = decodeMetadata(try c.decodeIfPresent([String: ContentText].self, forKey: .metadata))
        usage = try c.decodeIfPresent(Transcript.Usage.self, forKey: .usage)
    }
    /// Encodes the entry.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(calls, forKey: .calls)
        if !metadata.isEmpty { try c.encode(encodeMetadata(metadata), forKey: .metadata) }
        try c.encodeIfPresent(usage, forKey: .usage)
    }
}

extension Transcript.ToolOutput: Codable {
    private enum CodingKeys: String, CodingKey { case id, toolName, segments }
    /// Decodes a tool output.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), toolName: try c.decode(String.self, forKey: .toolName),
                  segments: try c.decode([Transcript.Segment].self, forKey: .segments))
    }
    /// Encodes the output.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(toolName, forKey: .toolName)
        try c.encode(segments, forKey: .segments)
    }
}

extension Transcript.Response: Codable {
    private enum CodingKeys: String, CodingKey { case id, assetIDs, segments, metadata, usage }
    /// Decodes a response entry.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), assetIDs: try c.decodeIfPresent([String].self, forKey: .assetIDs) ?? [],
                  segments: try c.decode([Transcript.Segment].self, forKey: .segments))
        metadata = decodeMetadata(try c.decodeIfPresent([String: ContentText].self, forKey: .metadata))
        usage = try c.decodeIfPresent(Transcript.Usage.self, forKey: .usage)
    }
    /// Encodes the entry.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(assetIDs, forKey: .assetIDs)
        try c.encode(segments, forKey: .segments)
        if !metadata.isEmpty { try c.encode(encodeMetadata(metadata), forKey: .metadata) }
        try c.encodeIfPresent(usage, forKey: .usage)
    }
}

extension Transcript.Reasoning: Codable {
    private enum CodingKeys: String, CodingKey { case id, segments, signature, metadata, usage }
    /// Decodes a reasoning entry.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id), segments: try c.decode([Transcript.Segment].self, forKey: .segments),
                  signature: try c.decodeIfPresent(Data.self, forKey: .signature))
        metadata = decodeMetadata(try c.decodeIfPresent([String: ContentText].self, forKey: .metadata))
        usage = try c.decodeIfPresent(Transcript.Usage.self, forKey: .usage)
    }
    /// Encodes the entry; the signature as base64 (JSONEncoder's default for `Data`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(segments, forKey: .segments)
        try c.encodeIfPresent(signature, forKey: .signature)
        if !metadata.isEmpty { try c.encode(encodeMetadata(metadata), forKey: .metadata) }
        try c.encodeIfPresent(usage, forKey: .usage)
    }
}
