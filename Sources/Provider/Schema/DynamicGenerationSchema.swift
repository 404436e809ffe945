import LoomJSON

/// A schema assembled at run time (for shapes not known at compile time), turned into a
/// `GenerationSchema` with `GenerationSchema(root:dependencies:)`.
public struct DynamicGenerationSchema: Sendable {
    indirect enum Body: Sendable {
        case object(properties: [Property])
        case stringChoices([String])
        case anyOf([DynamicGenerationSchema])
        case array(of: DynamicGenerationSchema, minimumElements: Int?, maximumElements: Int?)
        case fixed(GenerationSchema)
        case reference(String)
    }

    /// One property of a dynamic object schema.
    public struct Property: Sendable {
        /// The property's name.
        public var name: String
        /// What the property means.
        public var description: String?
        /// The property's schema.
        public var schema: DynamicGenerationSchema
        /// Whether the model may omit it.
        public var isOptional: Bool

        /// Builds a property.
        public init(name: String, description: String? = nil, schema: DynamicGenerationSchema, isOptional: Bool = false) {
            self.name = name
            self.description = description
            self.schema = schema
            self.isOptional = isOptional
        }
    }

    let name: String?
    let description: String?
    let body: Body

    /// An object schema named `name` with `properties` in order.
    public init(name: String, description: String? = nil, properties: [Property]) {
        self.name = name
        self.description = description
        body = .object(properties: properties)
    }

    /// A string schema named `name` allowing exactly `choices`.
    public init(name: String, description: String? = nil, anyOf choices: [String]) {
        self.name = name
        self.description = description
        body = .stringChoices(choices)
    }

    /// A schema named `name` that is any one of `choices`.
    public init(name: String, description: String? = nil, anyOf choices: [DynamicGenerationSchema]) {
        self.name = name
        self.description = description
        body = .anyOf(choices)
    }

    /// An array of `itemSchema` with optional element-count bounds.
    public init(arrayOf itemSchema: DynamicGenerationSchema, minimumElements: Int? = nil, maximumElements: Int? = nil) {
        name = nil
        description = nil
        body = .array(of: itemSchema, minimumElements: minimumElements, maximumElements: maximumElements)
    }

    /// The schema of a `Generable` type, with optional guides.
    public init<Value: Generable>(type: Value.Type, guides: [GenerationGuide<Value>] = []) {
        name = nil
        description = nil
        var schema = Value.generationSchema
        if !guides.isEmpty, case .object(var object) = schema.jsonSchema {
            for guide in guides { for (k, v) in guide.keywords { GenerationGuideKeywords.apply(k, v, to: &object) } }
            schema = GenerationSchema(validated: .object(object), name: schema.name)
        }
        body = .fixed(schema)
    }

    /// A reference to a schema named `name`, supplied as a dependency.
    public init(referenceTo name: String) {
        self.name = nil
        description = nil
        body = .reference(name)
    }
}

extension GenerationSchema {
    /// Builds a schema from a dynamic root and the named schemas it references.
    ///
    /// Named dependencies become `$defs` entries and references become `$ref`s; throws
    /// `SchemaError` for duplicate names, duplicate properties, empty choices or references
    /// to undefined schemas.
    public init(root: DynamicGenerationSchema, dependencies: [DynamicGenerationSchema]) throws {
        var definitions = JSONObject()
        var referenced: [String] = []
        var defined = Set<String>()
        for dependency in dependencies {
            guard let name = dependency.name else { continue }
            if defined.contains(name) {
                throw SchemaError.duplicateType(schema: root.name, type: name,
                                                .init(debugDescription: "Two dependencies are named '\(name)'."))
            }
            defined.insert(name)
        }
        for dependency in dependencies {
            guard let name = dependency.name else { continue }
            var body: JSONValue = try DynamicSchemaRenderer.render(dependency, references: &referenced, definitions: &definitions)
            if case .object(let object) = body {
                var titled = JSONObject([("title", .string(name))])
                for (k, v) in object { titled[k] = v }
                body = .object(titled)
            }
            definitions[name] = body
        }
        var rootBody = try DynamicSchemaRenderer.render(root, references: &referenced, definitions: &definitions)
        let missing = Array(Set(referenced).subtracting(defined)).sorted()
        if !missing.isEmpty {
            throw SchemaError.undefinedReferences(schema: root.name, references: missing,
                .init(debugDescription: "References to undefined schemas: \(missing.joined(separator: ", "))."))
        }
        if case .object(var object) = rootBody {
            var ordered = JSONObject()
            if let name = root.name { ordered["title"] = .string(name) }
            for (k, v) in object where k != "title" { ordered[k] = v }
            object = ordered
            if !definitions.isEmpty { object["$defs"] = .object(definitions) }
            rootBody = .object(object)
        }
        self.init(validated: rootBody, name: root.name ?? "")
    }
}

enum DynamicSchemaRenderer {
    static func render(_ schema: DynamicGenerationSchema, references: inout [String],
                       definitions: inout JSONObject) throws -> JSONValue {
        var object = JSONObject()
        switch schema.body {
        case .object(let properties):
            object["type"] = "object"
            if let d = schema.description { object["description"] = .string(d) }
            var members = JSONObject()
            var required: [JSONValue] = []
            for property in properties {
                if members[property.name] != nil {
                    throw GenerationSchema.SchemaError.duplicateProperty(schema: schema.name ?? "", property: property.name,
                        .init(debugDescription: "Property '\(property.name)' appears twice."))
                }
                var body = try render(property.schema, references: &references, definitions: &definitions)
                if let d = property.description, case .object(var o) = body { o["description"] = .string(d); body = .object(o) }
                members[property.name] = body
                if !property.isOptional { required.append(.string(property.name)) }
            }
            object["properties"] = .object(members)
            object["required"] = .array(required)
            object["additionalProperties"] = false
        case .stringChoices(let choices):
            if choices.isEmpty {
                throw GenerationSchema.SchemaError.emptyTypeChoices(schema: schema.name ?? "",
                    .init(debugDescription: "A string choice needs at least one value."))
            }
            object["type"] = "string"
            if let d = schema.description { object["description"] = .string(d) }
            object["enum"] = .array(choices.map { .string($0) })
        case .anyOf(let choices):
            if choices.isEmpty {
                throw GenerationSchema.SchemaError.emptyTypeChoices(schema: schema.name ?? "",
                    .init(debugDescription: "anyOf needs at least one choice."))
            }
            if let d = schema.description { object["description"] = .string(d) }
            object["anyOf"] = .array(try choices.map { try render($0, references: &references, definitions: &definitions) })
        case .array(let item, let minimum, let maximum):
            object["type"] = "array"
            object["items"] = try render(item, references: &references, definitions: &definitions)
            if let minimum { object["minItems"] = .number(JSONNumber(minimum)) }
            if let maximum { object["maxItems"] = .number(JSONNumber(maximum)) }
        case .fixed(let fixed):
            let embedded = SchemaComposition.embed(fixed)
            SchemaComposition.merge(embedded.definitions, into: &definitions)
            return embedded.schema
        case .reference(let name):
            references.append(name)
            object["$ref"] = .string("#/$defs/\(name)")
        }
        return .object(object)
    }
}
