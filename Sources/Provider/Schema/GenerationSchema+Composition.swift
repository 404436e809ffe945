import LoomJSON

/// Helpers for building one JSON Schema document out of others.
enum SchemaComposition {
    /// Splits a schema into its body (without `$schema`/`$defs`) and its definitions, so a
    /// parent can place the body inline and hoist the definitions to its own `$defs`.
    static func embed(_ schema: GenerationSchema) -> (schema: JSONValue, definitions: JSONObject) {
        guard case .object(var object) = schema.jsonSchema else { return (schema.jsonSchema, JSONObject()) }
        var definitions = JSONObject()
        if case .object(let defs)? = object["$defs"] { definitions = defs }
        object["$defs"] = nil
        object["$schema"] = nil
        return (.object(object), definitions)
    }

    /// Adds `more` to `definitions`; a name defined twice keeps the first definition.
    static func merge(_ more: JSONObject, into definitions: inout JSONObject) {
        for (key, value) in more where definitions[key] == nil { definitions[key] = value }
    }
}

extension GenerationSchema {
    /// One property of an object schema.
    public struct Property: Sendable {
        /// The property's name in the generated JSON.
        public var name: String
        /// What the property means, shown to the model.
        public var description: String?
        let schema: JSONValue
        let definitions: JSONObject
        let isOptional: Bool

        /// A required property of a `Generable` type, with optional guides.
        public init<Value: Generable>(
            name: String, description: String? = nil, type: Value.Type, guides: [GenerationGuide<Value>] = []
        ) {
            self.init(name: name, description: description, schema: Value.generationSchema, guides: guides.map(\.keywords),
                      isOptional: false)
        }

        /// An optional property of a `Generable` type: the model may omit it.
        public init<Value: Generable>(
            name: String, description: String? = nil, type: Value?.Type, guides: [GenerationGuide<Value>] = []
        ) {
            self.init(name: name, description: description, schema: Value.generationSchema, guides: guides.map(\.keywords),
                      isOptional: true)
        }

        /// A property whose schema is given directly (for example a raw JSON Schema).
        public init(name: String, description: String? = nil, schema: GenerationSchema, isOptional: Bool = false) {
            self.init(name: name, description: description, schema: schema, guides: [], isOptional: isOptional)
        }

        init(name: String, description: String?, schema: GenerationSchema, guides: [[(String, JSONValue)]], isOptional: Bool) {
            self.name = name
            self.description = description
            let embedded = SchemaComposition.embed(schema)
            var body = embedded.schema
            if case .object(var object) = body {
                object["title"] = nil
                if let description { object["description"] = .string(description) }
                for guide in guides { for (key, value) in guide { GenerationGuideKeywords.apply(key, value, to: &object) } }
                body = .object(object)
            }
            self.schema = body
            self.definitions = embedded.definitions
            self.isOptional = isOptional
        }
    }

    /// An object schema for `type` with the given properties, in order (the order the model
    /// generates them in; the `Codable` form states it as `x-order`, see `encode(to:)`).
    ///
    /// Duplicate property names are a programmer error; the later one replaces the earlier.
    public init(type: any Generable.Type, description: String? = nil, properties: [Property]) {
        var object = JSONObject([("title", .string(String(describing: type)))])
        let body = Self.objectBody(description: description, properties: properties)
        for (key, value) in body { object[key] = value }
        self.init(validated: .object(object), name: String(describing: type))
    }

    /// `type`, `description`, `properties`, `required`, `additionalProperties` and the hoisted
    /// `$defs` of an object with `properties`.
    static func objectBody(description: String?, properties: [Property]) -> JSONObject {
        var object = JSONObject([("type", "object")])
        if let description { object["description"] = .string(description) }
        var propertySchemas = JSONObject()
        var required: [JSONValue] = []
        var definitions = JSONObject()
        for property in properties {
            propertySchemas[property.name] = property.schema
            if !property.isOptional, !required.contains(.string(property.name)) { required.append(.string(property.name)) }
            SchemaComposition.merge(property.definitions, into: &definitions)
        }
        object["properties"] = .object(propertySchemas)
        object["required"] = .array(required)
        object["additionalProperties"] = false
        if !definitions.isEmpty { object["$defs"] = .object(definitions) }
        return object
    }

    /// One case of an enum whose cases carry values: the case's name and its values as properties
    /// (labels as names, unlabelled values as `_0`, `_1`, …, as Swift's `Codable` names them).
    public struct EnumCase: Sendable {
        /// The case's name, the single key of the object that stands for it.
        public var name: String
        /// What the case means, shown to the model.
        public var description: String?
        /// The case's associated values, in order.
        public var properties: [Property]

        /// Builds a case.
        public init(name: String, description: String? = nil, properties: [Property] = []) {
            self.name = name
            self.description = description
            self.properties = properties
        }
    }

    /// A schema for an enum whose cases carry values: `anyOf` one object per case, each with the
    /// case's name as its only key and an object of its values under it — `{"move":{"x":1}}`,
    /// `{"stop":{}}` — the shape Swift's synthesized `Codable` gives such an enum.
    public init(type: any Generable.Type, description: String? = nil, cases: [EnumCase]) {
        var object = JSONObject([("title", .string(String(describing: type)))])
        if let description { object["description"] = .string(description) }
        var definitions = JSONObject()
        var choices: [JSONValue] = []
        for enumCase in cases {
            var payload = Self.objectBody(description: enumCase.description, properties: enumCase.properties)
            if case .object(let defs)? = payload["$defs"] { SchemaComposition.merge(defs, into: &definitions) }
            payload["$defs"] = nil
            choices.append(.object(JSONObject([
                ("type", "object"),
                ("properties", .object(JSONObject([(enumCase.name, .object(payload))]))),
                ("required", .array([.string(enumCase.name)])),
                ("additionalProperties", false),
            ])))
        }
        object["anyOf"] = .array(choices)
        if !definitions.isEmpty { object["$defs"] = .object(definitions) }
        self.init(validated: .object(object), name: String(describing: type))
    }

    /// A string schema for `type` that allows exactly `choices`.
    public init(type: any Generable.Type, description: String? = nil, anyOf choices: [String]) {
        var object = JSONObject([("title", .string(String(describing: type))), ("type", "string")])
        if let description { object["description"] = .string(description) }
        object["enum"] = .array(choices.map { .string($0) })
        self.init(validated: .object(object), name: String(describing: type))
    }

    /// A schema for `type` that is any one of the given types' schemas.
    public init(type: any Generable.Type, description: String? = nil, anyOf types: [any Generable.Type]) {
        var object = JSONObject([("title", .string(String(describing: type)))])
        if let description { object["description"] = .string(description) }
        var definitions = JSONObject()
        var choices: [JSONValue] = []
        for choice in types {
            let embedded = SchemaComposition.embed(choice.generationSchema)
            choices.append(embedded.schema)
            SchemaComposition.merge(embedded.definitions, into: &definitions)
        }
        object["anyOf"] = .array(choices)
        if !definitions.isEmpty { object["$defs"] = .object(definitions) }
        self.init(validated: .object(object), name: String(describing: type))
    }
}
