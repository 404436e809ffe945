import Foundation
import LoomJSON

/// A type that can be built from generated content.
public protocol ConvertibleFromGeneratedContent: SendableMetatype {
    /// Builds a value from generated content; throw `GeneratedContent.ParsingError` on mismatch.
    init(_ content: GeneratedContent) throws
}

/// A type that can describe itself as generated content (for tool outputs, prompts and
/// `GeneratedContent(properties:)`).
public protocol ConvertibleToGeneratedContent: PromptRepresentable, InstructionsRepresentable, Sendable {
    /// The value as generated content.
    var generatedContent: GeneratedContent { get }
}

extension ConvertibleToGeneratedContent {
    /// The value's JSON text as a prompt.
    public var promptRepresentation: Prompt { Prompt(generatedContent.jsonString) }
    /// The value's JSON text as instructions.
    public var instructionsRepresentation: Instructions { Instructions(generatedContent.jsonString) }
}

/// A type a model can generate: it states its JSON Schema and builds itself from content.
///
/// `@Generable` (from the `Loom` product) writes the conformance for a struct or enum, with a
/// typed `PartiallyGenerated` mirror for streaming (see docs/generable-macros.md). Code that
/// does without the macros (the `LoomCore` product) conforms by writing the two requirements —
/// `generationSchema` (built with `GenerationSchema(type:properties:)`,
/// `DynamicGenerationSchema`, raw JSON via `GenerationSchema(jsonSchema:)`, or derived with
/// `GenerationSchema(deriving:)` for `Decodable` types) and `init(_ content:)`, which a
/// `Decodable` type gets for free. Plain `Decodable` types also work with the session's
/// `generating:` overloads without conforming; when a type is both, `Generable` wins.
public protocol Generable: ConvertibleFromGeneratedContent, Sendable {
    /// What streaming snapshots of this type hold before it is complete. Defaults to
    /// `GeneratedContent`, the partial JSON value as generated so far.
    associatedtype PartiallyGenerated: ConvertibleFromGeneratedContent & Sendable = GeneratedContent

    /// The JSON Schema a model's output must follow to produce this type.
    static var generationSchema: GenerationSchema { get }
}

extension ConvertibleFromGeneratedContent where Self: Decodable {
    /// Decodes the content's JSON with `JSONDecoder`; failures become `ParsingError`.
    public init(_ content: GeneratedContent) throws {
        let json = content.jsonString
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(json.utf8))
        } catch {
            throw GeneratedContent.ParsingError(rawContent: json, underlyingError: error,
                                                debugDescription: "Could not decode \(Self.self): \(error)")
        }
    }
}

// MARK: - GeneratedContent itself

extension GeneratedContent: Generable, ConvertibleToGeneratedContent {
    /// Any JSON value.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(validated: .object(JSONObject()), name: "GeneratedContent")
    }
    /// Itself.
    public init(_ content: GeneratedContent) { self = content }
    /// Itself.
    public var generatedContent: GeneratedContent { self }
}

// MARK: - Primitive conformances

extension String: Generable, ConvertibleToGeneratedContent {
    /// A partial string is the text generated so far.
    public typealias PartiallyGenerated = String
    /// `{"type":"string"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(validated: ["type": "string"], name: "String")
    }
    /// The string value; plain text content is taken as is.
    public init(_ content: GeneratedContent) throws {
        guard case .string(let s) = content.jsonValue else {
            throw GeneratedContent.ParsingError(rawContent: content.jsonString,
                                                debugDescription: "Expected a string, got \(content.jsonString)")
        }
        self = s
    }
    /// The string as content.
    public var generatedContent: GeneratedContent { GeneratedContent(jsonValue: .string(self)) }
}

extension Bool: Generable, ConvertibleToGeneratedContent {
    /// A partial boolean is the value as generated so far (snapshots that are not one yet are skipped).
    public typealias PartiallyGenerated = Bool
    /// `{"type":"boolean"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(validated: ["type": "boolean"], name: "Bool")
    }
    /// The boolean value.
    public init(_ content: GeneratedContent) throws {
        guard case .bool(let b) = content.jsonValue else {
            throw GeneratedContent.ParsingError(rawContent: content.jsonString,
                                                debugDescription: "Expected a boolean, got \(content.jsonString)")
        }
        self = b
    }
    /// The boolean as content.
    public var generatedContent: GeneratedContent { GeneratedContent(jsonValue: .bool(self)) }
}

extension Int: Generable, ConvertibleToGeneratedContent {
    /// A partial int is the value as generated so far (snapshots that are not one yet are skipped).
    public typealias PartiallyGenerated = Int
    /// `{"type":"integer"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(validated: ["type": "integer"], name: "Int")
    }
    /// The integer value (a number with an exact integer value).
    public init(_ content: GeneratedContent) throws {
        guard case .number(let n) = content.jsonValue, let i = n.intValue else {
            throw GeneratedContent.ParsingError(rawContent: content.jsonString,
                                                debugDescription: "Expected an integer, got \(content.jsonString)")
        }
        self = i
    }
    /// The integer as content.
    public var generatedContent: GeneratedContent { GeneratedContent(jsonValue: .number(JSONNumber(self))) }
}

extension Double: Generable, ConvertibleToGeneratedContent {
    /// A partial double is the value as generated so far (snapshots that are not one yet are skipped).
    public typealias PartiallyGenerated = Double
    /// `{"type":"number"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(validated: ["type": "number"], name: "Double")
    }
    /// The numeric value.
    public init(_ content: GeneratedContent) throws {
        guard case .number(let n) = content.jsonValue else {
            throw GeneratedContent.ParsingError(rawContent: content.jsonString,
                                                debugDescription: "Expected a number, got \(content.jsonString)")
        }
        self = n.doubleValue
    }
    /// The number as content.
    public var generatedContent: GeneratedContent { GeneratedContent(jsonValue: .number(JSONNumber(self))) }
}

extension Float: Generable, ConvertibleToGeneratedContent {
    /// A partial float is the value as generated so far (snapshots that are not one yet are skipped).
    public typealias PartiallyGenerated = Float
    /// `{"type":"number"}`.
    public static var generationSchema: GenerationSchema {
        GenerationSchema(validated: ["type": "number"], name: "Float")
    }
    /// The numeric value, rounded to `Float`.
    public init(_ content: GeneratedContent) throws { self = Float(try Double(content)) }
    /// The number as content.
    public var generatedContent: GeneratedContent { GeneratedContent(jsonValue: .number(JSONNumber(Double(self)))) }
}

extension Array: Generable where Element: Generable {
    /// A partial array holds the elements generated so far, each in its partial form.
    public typealias PartiallyGenerated = [Element.PartiallyGenerated]
    /// `{"type":"array","items":<Element schema>}`; the element schema is inline, without its
    /// `title` (the type's name is no instruction to the model), as a property's is.
    public static var generationSchema: GenerationSchema {
        let items = SchemaComposition.embed(Element.generationSchema)
        var itemSchema = items.schema
        if case .object(var object) = itemSchema, object["title"] != nil {
            object["title"] = nil
            itemSchema = .object(object)
        }
        var object = JSONObject([("type", "array"), ("items", itemSchema)])
        if !items.definitions.isEmpty { object["$defs"] = .object(items.definitions) }
        return GenerationSchema(validated: .object(object), name: "[\(Element.generationSchema.name)]")
    }
}

extension Array: ConvertibleFromGeneratedContent where Element: ConvertibleFromGeneratedContent {
    /// Converts each element.
    public init(_ content: GeneratedContent) throws {
        self = try content.elements().map { try Element($0) }
    }
}

extension Array: ConvertibleToGeneratedContent, PromptRepresentable, InstructionsRepresentable
where Element: ConvertibleToGeneratedContent {
    /// The elements as a JSON array.
    public var generatedContent: GeneratedContent {
        GeneratedContent(jsonValue: .array(map { $0.generatedContent.jsonValue }))
    }
}

extension Optional: ConvertibleToGeneratedContent, PromptRepresentable, InstructionsRepresentable
where Wrapped: ConvertibleToGeneratedContent {
    /// The wrapped value's content, or JSON `null`.
    public var generatedContent: GeneratedContent {
        self?.generatedContent ?? GeneratedContent(jsonValue: .null)
    }
}
