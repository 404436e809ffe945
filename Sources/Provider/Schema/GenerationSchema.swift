import Foundation
import LoomJSON

/// The shape a structured response (or a tool's arguments) must take, as JSON Schema.
///
/// A schema is stored as the JSON Schema document itself, so a schema built from raw JSON
/// (`init(jsonSchema:)`) is lossless: every keyword — including ones Loom does not interpret —
/// `$schema`, `$defs`, member order and number spelling survive to `jsonSchema` and to every
/// backend (local grammars, tool parameters, HTTP bodies). `Codable` encodes the same
/// document, so `JSONEncoder().encode(schema)` yields standard JSON Schema.
public struct GenerationSchema: Sendable, Equatable, Codable, CustomDebugStringConvertible {
    /// The JSON Schema document.
    public let jsonSchema: JSONValue
    /// The schema's name: its `title`, the definition its root `$ref` names, or the Swift type
    /// it was built from; empty for anonymous inline schemas.
    public let name: String

    /// A schema from a JSON Schema document (an object, or `true`/`false`).
    public init(jsonSchema: JSONValue) throws {
        switch jsonSchema {
        case .object, .bool: break
        default:
            throw SchemaError.invalidJSONSchema(.init(debugDescription:
                "A JSON Schema must be an object or a boolean, not \(jsonSchema.serialized())"))
        }
        self.init(validated: jsonSchema, name: nil)
    }

    /// A schema from JSON Schema text; throws `SchemaError.invalidJSONSchema` if it is not JSON.
    public init(jsonSchema text: String) throws {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch {
            throw SchemaError.invalidJSONSchema(.init(debugDescription: "Schema text is not valid JSON: \(error)"))
        }
        try self.init(jsonSchema: value)
    }

    /// A schema from UTF-8 JSON Schema bytes.
    public init(jsonSchema data: Data) throws {
        let value: JSONValue
        do { value = try JSONValue(parsing: Array(data)) } catch {
            throw SchemaError.invalidJSONSchema(.init(debugDescription: "Schema data is not valid JSON: \(error)"))
        }
        try self.init(jsonSchema: value)
    }

    init(validated document: JSONValue, name: String?) {
        jsonSchema = document
        self.name = name ?? GenerationSchema.inferName(document)
    }

    static func inferName(_ document: JSONValue) -> String {
        if let title = document["title"]?.stringValue { return title }
        if let ref = document["$ref"]?.stringValue, let slash = ref.lastIndex(of: "/") {
            return String(ref[ref.index(after: slash)...])
        }
        return ""
    }

    /// The schema as compact JSON text, member order preserved.
    public var jsonString: String { jsonSchema.serialized() }

    /// The schema as pretty-printed JSON.
    public var debugDescription: String { jsonSchema.serialized(.pretty) }

    /// Decodes a JSON Schema document (or JSON Schema text in a string); `properties` take the
    /// order of the `x-order` array beside them, which `encode(to:)` writes.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer(), let text = try? container.decode(String.self) {
            try self.init(jsonSchema: text)
            return
        }
        try self.init(jsonSchema: Self.applyingPropertyOrder(JSONValueCoding(from: decoder).value))
    }

    /// Encodes the JSON Schema document, with an `x-order` array of property names beside every
    /// `properties`: an encoder may reorder object members (Foundation's `JSONEncoder` on Linux
    /// does), and the order is the one properties are generated in.
    public func encode(to encoder: any Encoder) throws {
        try JSONValueCoding(Self.statingPropertyOrder(jsonSchema)).encode(to: encoder)
    }

    /// Equal when the documents are equal as JSON (member order ignored).
    public static func == (a: GenerationSchema, b: GenerationSchema) -> Bool {
        a.jsonSchema == b.jsonSchema && a.name == b.name
    }
}

extension GenerationSchema {
    /// A schema that could not be built. Non-frozen.
    public enum SchemaError: Error, LocalizedError, Sendable {
        /// What went wrong, for developers.
        public struct Context: Sendable {
            /// A developer-facing explanation.
            public var debugDescription: String
            /// Builds a context.
            public init(debugDescription: String) { self.debugDescription = debugDescription }
        }

        /// Two properties of one object share a name.
        case duplicateProperty(schema: String, property: String, Context)
        /// Two dependency schemas share a name.
        case duplicateType(schema: String?, type: String, Context)
        /// An `anyOf` with no choices.
        case emptyTypeChoices(schema: String, Context)
        /// References to schemas that were not supplied as dependencies.
        case undefinedReferences(schema: String?, references: [String], Context)
        /// Raw JSON that is not a JSON Schema document.
        case invalidJSONSchema(Context)

        /// The context's explanation.
        public var errorDescription: String? {
            switch self {
            case .duplicateProperty(_, _, let c), .duplicateType(_, _, let c), .emptyTypeChoices(_, let c),
                 .undefinedReferences(_, _, let c), .invalidJSONSchema(let c):
                return c.debugDescription
            }
        }
    }
}
