import LoomJSON

/// What a conjunction of schemas (the schemas an instance must satisfy together) says, keyword
/// by keyword, after `$ref`s and `allOf`s are folded in. Disjunctions (`anyOf`, `oneOf`,
/// `if`/`then`/`else`, negations of conjunctions) are left as groups for the compiler to expand.
struct SchemaFacts {
    var impossible = false
    /// Allowed JSON types; nil for any.
    var types: Set<String>?
    var enumValues: [JSONValue]?
    var notValues: [JSONValue] = []
    var groups: [SchemaGroup] = []

    var minLength = 0
    var maxLength = -1
    var patterns: [(String, String)] = []
    var notPatterns: [(String, String)] = []
    var formats: [(String, String)] = []
    var notFormats: [(String, String)] = []

    var minimum: (ExactDecimal, Bool)?
    var maximum: (ExactDecimal, Bool)?
    var multipleOf: [ExactDecimal] = []
    var nonInteger = false

    var objectViews: [ObjectView] = []
    var required: [String] = []
    var minProperties = 0
    var maxProperties = -1
    var propertyNames: [SchemaLoc] = []
    var dependentRequired: [(String, [String])] = []
    var notRequired: [[String]] = []
    /// Members the object must have at least one of (complements of member keywords).
    var memberWitnesses: [MemberWitness] = []

    var arrayViews: [ArrayView] = []
    /// `unevaluatedProperties`/`unevaluatedItems` still to become views: which members or items
    /// they reach is known once every disjunction that may evaluate some has been expanded.
    var unevaluated: [UnevaluatedKeyword] = []
    /// `if`s with neither `then` nor `else`: they constrain nothing, but a condition that holds
    /// evaluates members or items for an `unevaluated*` keyword around it.
    var bareConditions: [(key: String, owner: String, cond: SchemaLoc, pointer: String)] = []
    var minItems = 0
    var maxItems = -1
    var uniqueItems: String?
    var contains: [SchemaLoc] = []
    var minContains: Int?
    var maxContains: Int?

    /// Keywords that constrain objects or arrays (enum values of those types then need checking).
    var constrainsContainers: Bool {
        !objectViews.isEmpty || !required.isEmpty || minProperties > 0 || maxProperties >= 0 || !propertyNames.isEmpty
            || !dependentRequired.isEmpty || !notRequired.isEmpty || !memberWitnesses.isEmpty || !arrayViews.isEmpty || minItems > 0
            || maxItems >= 0 || uniqueItems != nil || !contains.isEmpty
    }

    mutating func restrictTypes(_ t: Set<String>) {
        var t = t
        if t.contains("number") { t.insert("integer") }
        if let cur = types {
            var out = cur.intersection(t)
            // `integer` ∩ `number` is `integer`.
            if cur.contains("integer") && t.contains("number") && !t.contains("integer") { out.insert("integer") }
            types = out
        } else {
            types = t
        }
    }

    mutating func tightenMin(_ v: ExactDecimal, _ exclusive: Bool) {
        if let (m, e) = minimum {
            let c = ExactDecimal.compare(v, m)
            if c > 0 || (c == 0 && exclusive && !e) { minimum = (v, exclusive) }
        } else {
            minimum = (v, exclusive)
        }
    }

    mutating func tightenMax(_ v: ExactDecimal, _ exclusive: Bool) {
        if let (m, e) = maximum {
            let c = ExactDecimal.compare(v, m)
            if c < 0 || (c == 0 && exclusive && !e) { maximum = (v, exclusive) }
        } else {
            maximum = (v, exclusive)
        }
    }
}

/// One schema's object keywords, kept apart because `additionalProperties` only sees the
/// `properties`/`patternProperties` of its own schema.
struct ObjectView {
    var properties: [(String, SchemaLoc)] = []
    var patterns: [(String, SchemaLoc)] = []
    /// nil when absent (any value).
    var additional: SchemaLoc?
    var pointer: String

    func property(_ name: String) -> SchemaLoc? { properties.first { $0.0 == name }?.1 }
}

/// "Some member has a key like this and a value satisfying `value`": what the complement of
/// `properties`, `patternProperties` and `additionalProperties` needs (some member breaks them).
struct MemberWitness {
    /// Keys that do not qualify (the declared properties, for `additionalProperties`).
    var excludedNames: [String] = []
    /// Patterns a qualifying key must not match (for `additionalProperties`).
    var excludedPatterns: [String] = []
    /// A pattern a qualifying key must match (for `patternProperties`).
    var pattern: String?
    var value: SchemaLoc
    var pointer: String
}

/// One schema's array keywords.
struct ArrayView {
    var prefix: [SchemaLoc] = []
    /// Schema for items after the prefix; nil when absent (any value).
    var rest: SchemaLoc?
}

/// A disjunction still to expand: the instance satisfies one of the alternatives (each a list of
/// schemas to add to the conjunction).
struct SchemaGroup {
    let key: String
    let keyword: String
    let pointer: String
    var alternatives: [[SchemaLoc]]
    /// `oneOf`: exactly one alternative may hold.
    let exclusive: Bool
    /// What each alternative says about the branches that hold, for `unevaluated*` keywords
    /// (`JSONSchemaCompiler+Unevaluated.swift`): "S:i,j" exactly branches i and j hold, "A:i" at
    /// least branch i, "i" branch i alone (`oneOf`), "then"/"else", and for `dependentSchemas`
    /// "n"/"a"/"p" (not an object, property absent, property present).
    var labels: [String] = []
    /// Key of the schema location holding the keyword.
    var owner = ""
    /// Whether an `unevaluated*` keyword reads this group's annotations, so an `anyOf` must be
    /// expanded into "exactly these branches hold" alternatives.
    var exactAnnotations = false
}

/// An `unevaluatedProperties`/`unevaluatedItems` keyword (not `true`) waiting for its conjunction
/// to be fully expanded.
struct UnevaluatedKeyword {
    /// The schema holding the keyword, as queued (not yet inside its own resource): the root of
    /// the in-place applicators whose annotations count.
    let owner: SchemaLoc
    /// The keyword's subschema, applied to every member or item nothing in scope evaluates.
    let schema: SchemaLoc
    /// `unevaluatedItems` (else `unevaluatedProperties`).
    let items: Bool

    var keyword: String { items ? "unevaluatedItems" : "unevaluatedProperties" }
    var pointer: String { owner.pointer + "/" + keyword }
}

/// The seven JSON Schema types.
let allJSONTypes: Set<String> = ["null", "boolean", "object", "array", "string", "number", "integer"]
