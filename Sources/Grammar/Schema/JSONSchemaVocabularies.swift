import LoomJSON

/// Draft 2020-12 vocabularies: a custom metaschema's `$vocabulary` decides which keywords mean
/// anything. Keywords of a vocabulary the metaschema leaves out are unknown keywords, i.e.
/// annotations: `minimum` under a metaschema without the validation vocabulary constrains nothing.
///
/// Only metaschemas Loom can read (given in `JSONSchemaOptions.remoteDocuments`) are consulted;
/// the standard metaschemas enable every vocabulary, which is what the compiler assumes.
enum JSONSchemaVocabularies {
    private static let prefix = "https://json-schema.org/draft/2020-12/vocab/"
    static let core = prefix + "core"
    static let applicator = prefix + "applicator"
    static let unevaluated = prefix + "unevaluated"
    static let validation = prefix + "validation"
    static let metaData = prefix + "meta-data"
    static let formatAnnotation = prefix + "format-annotation"
    static let formatAssertion = prefix + "format-assertion"
    static let content = prefix + "content"
    static let known: Set<String> = [core, applicator, unevaluated, validation, metaData, formatAnnotation, formatAssertion, content]

    static let validationKeywords: Set<String> = [
        "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
        "maxProperties", "minProperties", "required", "dependentRequired",
    ]

    static let applicatorKeywords: Set<String> = [
        "prefixItems", "items", "contains", "additionalProperties", "properties", "patternProperties",
        "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
    ]

    /// Keywords whose values are maps of subschemas, single subschemas, and arrays of subschemas.
    /// (`dependencies` maps names to schemas or to arrays of names; arrays pass through unchanged.)
    private static let schemaMaps: Set<String> = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]
    private static let schemaValues: Set<String> = [
        "additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else",
        "unevaluatedItems", "unevaluatedProperties", "additionalItems", "contentSchema",
    ]
    private static let schemaArrays: Set<String> = ["prefixItems", "allOf", "anyOf", "oneOf", "items"]

    /// The root with the keywords of disabled vocabularies removed from every schema position.
    /// Throws `.unsupported` when the metaschema requires a vocabulary Loom does not know (the
    /// specification says such a schema must not be processed). A `$ref` into a dropped keyword
    /// (only possible when applicators are dropped) fails to resolve, a typed error too.
    static func apply(to root: JSONValue, remotes: [String: JSONValue]) throws(GrammarError) -> JSONValue {
        guard case .object(let o) = root, let uri = o["$schema"]?.stringValue else { return root }
        let key = uri.hasSuffix("#") ? String(uri.dropLast()) : uri
        guard case .object(let meta)? = remotes[key] ?? remotes[uri], case .object(let vocabulary)? = meta["$vocabulary"] else { return root }
        for (v, required) in vocabulary where required == .bool(true) && !known.contains(v) {
            throw GrammarError(.unsupported, keyword: "$schema", pointer: "/$schema", "the metaschema requires the unknown vocabulary \(v)")
        }
        var drop: Set<String> = []
        if vocabulary[applicator] == nil { drop.formUnion(applicatorKeywords) }
        if vocabulary[validation] == nil { drop.formUnion(validationKeywords) }
        if vocabulary[unevaluated] == nil { drop.formUnion(["unevaluatedItems", "unevaluatedProperties"]) }
        if vocabulary[formatAnnotation] == nil && vocabulary[formatAssertion] == nil { drop.insert("format") }
        if drop.isEmpty { return root }
        return try strip(root, drop, dialect: uri, pointer: "")
    }

    /// Keywords a draft does not know yet, by the draft that introduced them. A schema that
    /// declares an older draft gets them as unknown keywords, i.e. annotations: a draft-04
    /// schema's `if`/`then` or `const` constrains nothing, as a validator for that draft reads it.
    static let introducedIn: [(JSONSchemaDraft, Set<String>)] = [
        (.draft6, ["const", "contains", "propertyNames"]),
        (.draft7, ["if", "then", "else"]),
        (.draft2019_09, ["dependentRequired", "dependentSchemas", "unevaluatedProperties", "unevaluatedItems",
                         "maxContains", "minContains"]),
        (.draft2020_12, ["prefixItems"]),
    ]

    /// The root without the keywords `draft` does not know (the root itself when there are none).
    static func applyDraft(_ draft: JSONSchemaDraft, to root: JSONValue) throws(GrammarError) -> JSONValue {
        var drop: Set<String> = []
        for (since, keywords) in introducedIn where draft < since { drop.formUnion(keywords) }
        if drop.isEmpty { return root }
        return try strip(root, drop, dialect: nil, pointer: "")
    }

    /// `schema` with the keywords in `drop` removed at every schema position. With a `dialect`,
    /// an embedded resource declaring another one is refused (its vocabularies are unknown).
    private static func strip(_ schema: JSONValue, _ drop: Set<String>, dialect: String?, pointer: String) throws(GrammarError) -> JSONValue {
        guard case .object(let o) = schema else { return schema }
        if let dialect, !pointer.isEmpty, let s = o["$schema"]?.stringValue, s != dialect {
            throw GrammarError(.unsupported, keyword: "$schema", pointer: pointer + "/$schema",
                               "an embedded resource with another dialect under a custom vocabulary is not supported")
        }
        var out: [(String, JSONValue)] = []
        for (k, v) in o.members where !drop.contains(k) {
            let p = pointer + "/" + escape(k)
            switch v {
            case .object(let m) where schemaMaps.contains(k):
                var inner: [(String, JSONValue)] = []
                for (name, sub) in m.members { inner.append((name, try strip(sub, drop, dialect: dialect, pointer: p + "/" + escape(name)))) }
                out.append((k, .object(JSONObject(inner))))
            case .array(let xs) where schemaArrays.contains(k):
                var inner: [JSONValue] = []
                for (i, sub) in xs.enumerated() { inner.append(try strip(sub, drop, dialect: dialect, pointer: p + "/\(i)")) }
                out.append((k, .array(inner)))
            case _ where schemaValues.contains(k):
                out.append((k, try strip(v, drop, dialect: dialect, pointer: p)))
            default:
                out.append((k, v))
            }
        }
        return .object(JSONObject(out))
    }

    private static func escape(_ k: String) -> String {
        var out = ""
        for c in k { out += c == "~" ? "~0" : c == "/" ? "~1" : String(c) }
        return out
    }
}
