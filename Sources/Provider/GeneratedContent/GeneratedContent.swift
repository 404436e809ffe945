import Foundation
import LoomJSON

/// Structured output from a model: a JSON value that may still be growing while streaming.
///
/// Object member order is kept as generated. A value parsed from a prefix of the model's
/// output has `isComplete == false`; its open strings, arrays and objects are closed so the
/// partial value is usable (see `GeneratedContent(partialJSON:)`).
public struct GeneratedContent: Sendable, Equatable, CustomStringConvertible {
    /// The content's JSON value.
    public internal(set) var jsonValue: JSONValue
    /// False while the content is a partial snapshot of a response still being generated.
    public internal(set) var isComplete: Bool
    /// Identity kept across the snapshots of one generation.
    public var id: GenerationID?

    /// The shape of generated content, for switching over it. Non-frozen.
    public enum Kind: Sendable, Equatable {
        /// JSON `null`.
        case null
        /// A boolean.
        case bool(Bool)
        /// A number.
        case number(Double)
        /// A string.
        case string(String)
        /// An array.
        case array([GeneratedContent])
        /// An object: `properties` by name, `orderedKeys` in generation order.
        case structure(properties: [String: GeneratedContent], orderedKeys: [String])
    }

    /// Wraps a JSON value.
    public init(jsonValue: JSONValue, isComplete: Bool = true, id: GenerationID? = nil) {
        self.jsonValue = jsonValue
        self.isComplete = isComplete
        self.id = id
    }

    /// Builds content from its kind.
    public init(kind: Kind, id: GenerationID? = nil) {
        self.init(jsonValue: kind.jsonValue, id: id)
    }

    /// Parses complete JSON text; throws `ParsingError` (with the text as `rawContent`) if invalid.
    public init(json: String) throws {
        do {
            self.init(jsonValue: try JSONValue(parsing: json))
        } catch {
            throw ParsingError(rawContent: json, underlyingError: error,
                               debugDescription: "Generated content is not valid JSON: \(error)")
        }
    }

    /// Content from a value that converts itself.
    public init(_ value: some ConvertibleToGeneratedContent) {
        self = value.generatedContent
    }

    /// An object with the given members, in order.
    public init(properties: KeyValuePairs<String, any ConvertibleToGeneratedContent>, id: GenerationID? = nil) {
        var object = JSONObject()
        for (key, value) in properties { object[key] = value.generatedContent.jsonValue }
        self.init(jsonValue: .object(object), id: id)
    }

    /// An object with the given members, in order; `combine` decides the value of a name given twice
    /// (it receives the earlier and the later value).
    public init<S: Sequence, Combined: ConvertibleToGeneratedContent>(
        properties: S, id: GenerationID? = nil,
        uniquingKeysWith combine: (GeneratedContent, GeneratedContent) throws -> Combined
    ) rethrows where S.Element == (String, any ConvertibleToGeneratedContent) {
        var object = JSONObject()
        for (key, value) in properties {
            let content = value.generatedContent
            if let earlier = object[key] {
                object[key] = try combine(GeneratedContent(jsonValue: earlier), content).generatedContent.jsonValue
            } else {
                object[key] = content.jsonValue
            }
        }
        self.init(jsonValue: .object(object), id: id)
    }

    /// An array of the given elements.
    public init<S: Sequence>(elements: S, id: GenerationID? = nil) where S.Element == any ConvertibleToGeneratedContent {
        self.init(jsonValue: .array(elements.map { $0.generatedContent.jsonValue }), id: id)
    }

    /// The content as JSON text (compact, members in generation order).
    public var jsonString: String { jsonValue.serialized() }

    /// The JSON text.
    public var description: String { jsonString }

    /// The content's shape.
    public var kind: Kind {
        switch jsonValue {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n.doubleValue)
        case .string(let s): return .string(s)
        case .array(let items):
            return .array(items.map { GeneratedContent(jsonValue: $0, isComplete: isComplete) })
        case .object(let object):
            var properties: [String: GeneratedContent] = [:]
            for (key, value) in object { properties[key] = GeneratedContent(jsonValue: value, isComplete: isComplete) }
            return .structure(properties: properties, orderedKeys: object.keys)
        }
    }

    /// The object's members; throws `ParsingError` if the content is not an object.
    public func properties() throws -> [String: GeneratedContent] {
        guard case .structure(let properties, _) = kind else {
            throw ParsingError(rawContent: jsonString, debugDescription: "GeneratedContent is not an object.")
        }
        return properties
    }

    /// The array's elements; throws `ParsingError` if the content is not an array.
    public func elements() throws -> [GeneratedContent] {
        guard case .array(let items) = kind else {
            throw ParsingError(rawContent: jsonString, debugDescription: "GeneratedContent is not an array.")
        }
        return items
    }

    /// Converts the whole content to `type`.
    public func value<Value: ConvertibleFromGeneratedContent>(_ type: Value.Type = Value.self) throws -> Value {
        try Value(self)
    }

    /// Converts a required member to `type`; throws `ParsingError` when it is missing.
    public func value<Value: ConvertibleFromGeneratedContent>(
        _ type: Value.Type = Value.self, forProperty property: String
    ) throws -> Value {
        guard case .object(let object) = jsonValue, let member = object[property] else {
            throw ParsingError(rawContent: jsonString,
                               debugDescription: "GeneratedContent does not contain a property '\(property)'.")
        }
        return try Value(GeneratedContent(jsonValue: member, isComplete: isComplete))
    }

    /// Converts an optional member to `type`; nil when it is missing or `null`.
    public func value<Value: ConvertibleFromGeneratedContent>(
        _ type: Value?.Type = Value?.self, forProperty property: String
    ) throws -> Value? {
        guard case .object(let object) = jsonValue else {
            throw ParsingError(rawContent: jsonString, debugDescription: "GeneratedContent is not an object.")
        }
        guard let member = object[property], !member.isNull else { return nil }
        return try Value(GeneratedContent(jsonValue: member, isComplete: isComplete))
    }

    /// Equal when the JSON values are equal (member order ignored) and completeness matches.
    public static func == (a: GeneratedContent, b: GeneratedContent) -> Bool {
        a.jsonValue == b.jsonValue && a.isComplete == b.isComplete
    }
}

extension GeneratedContent.Kind {
    var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let d): return .number(JSONNumber(d))
        case .string(let s): return .string(s)
        case .array(let items): return .array(items.map(\.jsonValue))
        case .structure(let properties, let orderedKeys):
            var object = JSONObject()
            for key in orderedKeys { if let value = properties[key] { object[key] = value.jsonValue } }
            // Keys missing from `orderedKeys` still belong to the object; append them stably.
            for key in properties.keys.sorted() where object[key] == nil { object[key] = properties[key]!.jsonValue }
            return .object(object)
        }
    }
}
