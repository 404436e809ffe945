import LoomJSON

// A schema's property order is the order a model generates properties in, and it lives in the
// member order of `properties`. Loom's own serializations keep member order, but JSON objects are
// unordered to `Codable` (Foundation's `JSONEncoder` on Linux writes members in its own order and
// `JSONDecoder` hands them back unordered), so the `Codable` form states the order as an `x-order`
// array beside each `properties` — the annotation keyword Apple's encoded schemas carry — and
// decoding puts the members back in that order. Annotation keywords are ignored by validators and
// by Loom's grammar compiler.
extension GenerationSchema {
    /// The keywords whose value is a map of name to subschema.
    static let schemaMapKeywords: Set<String> = [
        "properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
    ]
    /// The keywords whose value is one subschema.
    static let subschemaKeywords: Set<String> = [
        "items", "additionalItems", "additionalProperties", "unevaluatedItems", "unevaluatedProperties",
        "contains", "propertyNames", "not", "if", "then", "else",
    ]
    /// The keywords whose value is an array of subschemas.
    static let subschemaArrayKeywords: Set<String> = ["anyOf", "oneOf", "allOf", "prefixItems", "items"]

    /// `schema` with an `x-order` array of its property names beside every `properties` that
    /// lacks one, at every depth.
    static func statingPropertyOrder(_ schema: JSONValue) -> JSONValue {
        rewritingSubschemas(schema) { object in
            if case .object(let properties)? = object["properties"], object["x-order"] == nil {
                object["x-order"] = .array(properties.keys.map { .string($0) })
            }
        }
    }

    /// `schema` with every `properties` put in the order of the `x-order` beside it (names it
    /// does not list follow, in their current order), and an `x-order` that only restated that
    /// order removed: the order is the members' order again.
    static func applyingPropertyOrder(_ schema: JSONValue) -> JSONValue {
        rewritingSubschemas(schema) { object in
            guard case .object(let properties)? = object["properties"],
                  case .array(let names)? = object["x-order"] else { return }
            var ordered = JSONObject()
            for case .string(let name) in names { if let value = properties[name] { ordered[name] = value } }
            for (name, value) in properties where ordered[name] == nil { ordered[name] = value }
            object["properties"] = .object(ordered)
            if names == ordered.keys.map({ .string($0) }) { object["x-order"] = nil }
        }
    }

    /// Applies `rewrite` to every schema object in `schema`, innermost first.
    static func rewritingSubschemas(_ schema: JSONValue, _ rewrite: (inout JSONObject) -> Void) -> JSONValue {
        guard case .object(var object) = schema else { return schema }
        for (key, value) in object {
            if schemaMapKeywords.contains(key), case .object(let map) = value {
                var rewritten = JSONObject()
                for (name, subschema) in map { rewritten[name] = rewritingSubschemas(subschema, rewrite) }
                object[key] = .object(rewritten)
            } else if subschemaArrayKeywords.contains(key), case .array(let items) = value {
                object[key] = .array(items.map { rewritingSubschemas($0, rewrite) })
            } else if subschemaKeywords.contains(key), case .object = value {
                object[key] = rewritingSubschemas(value, rewrite)
            }
        }
        rewrite(&object)
        return .object(object)
    }
}
