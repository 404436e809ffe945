import LoomJSON

/// The JSON Schema draft whose rules apply (chosen by `$schema`, else `JSONSchemaOptions.defaultDraft`).
public enum JSONSchemaDraft: Int, Sendable, Hashable, Comparable {
    case draft4 = 4, draft6 = 6, draft7 = 7, draft2019_09 = 2019, draft2020_12 = 2020

    public static func < (a: JSONSchemaDraft, b: JSONSchemaDraft) -> Bool { a.rawValue < b.rawValue }

    /// The draft named by a `$schema` URI, if recognised.
    public init?(schemaURI: String) {
        if schemaURI.contains("draft-04") { self = .draft4 }
        else if schemaURI.contains("draft-06") { self = .draft6 }
        else if schemaURI.contains("draft-07") { self = .draft7 }
        else if schemaURI.contains("2019-09") { self = .draft2019_09 }
        else if schemaURI.contains("2020-12") { self = .draft2020_12 }
        else { return nil }
    }
}

/// How a JSON Schema is turned into a grammar. Hashable, so that a cache of compiled grammars
/// (and a model's executor key) tells apart every option that changes the language.
public struct JSONSchemaOptions: Sendable, Hashable {
    /// Ignore constraints that cannot be enforced exactly (recorded in `Grammar.warnings`) instead of
    /// failing. The grammar may then accept instances the schema forbids.
    public var lenient = false
    /// Allow JSON whitespace between tokens (needed to recognise pretty-printed instances).
    /// Off by default: generation without whitespace is shorter and steadier.
    public var whitespace = false
    /// Only allow declared properties in schema order (a steadier path for generation). When off,
    /// declared properties may come in any order, each at most once.
    public var schemaOrder = true
    /// Treat objects as closed (`additionalProperties: false`) unless the schema says otherwise.
    public var closedObjects = false
    /// The draft for schemas without a recognised `$schema`.
    public var defaultDraft: JSONSchemaDraft = .draft2020_12
    /// Documents that `$ref` may load by absolute URI (no network access is ever made).
    public var remoteDocuments: [String: JSONValue] = [:]
    /// Confine the grammar to canonical spellings of valid values, a steadier path for generation:
    /// `integer` is written as plain digits (`2`, never the equally valid `2.0` or `20e-1`), and
    /// `hostname` has no IDNA A-labels (`xn--…`, whose validity needs Punycode decoding and the
    /// IDNA tables). Every value the grammar admits is still valid. When off (recognition), the
    /// grammar accepts every valid spelling, or compilation fails with `.unsupported` where it
    /// cannot (strict), or keeps the canonical subset with a warning (`lenient`).
    public var canonicalForms = true

    /// Options for generation: compact output, schema order, canonical forms, strict.
    public init(lenient: Bool = false, whitespace: Bool = false, schemaOrder: Bool = true,
                closedObjects: Bool = false, defaultDraft: JSONSchemaDraft = .draft2020_12,
                remoteDocuments: [String: JSONValue] = [:], canonicalForms: Bool = true) {
        self.lenient = lenient
        self.whitespace = whitespace
        self.schemaOrder = schemaOrder
        self.closedObjects = closedObjects
        self.defaultDraft = defaultDraft
        self.remoteDocuments = remoteDocuments
        self.canonicalForms = canonicalForms
    }

    /// Options for recognising real instances: any whitespace, any property order, every spelling.
    public static let recognition = JSONSchemaOptions(whitespace: true, schemaOrder: false, canonicalForms: false)
}
