import LoomJSON

extension Grammar {
    /// Compiles a JSON Schema given as JSON text.
    public convenience init(jsonSchema text: String, options: JSONSchemaOptions = JSONSchemaOptions()) throws(GrammarError) {
        let value: JSONValue
        let depth = try JSONSchemaCompiler.checkDepth(text: text)
        // The parser recurses once per level and cannot check as it goes: without room for the
        // whole depth, refuse here rather than overflow the calling thread's stack.
        guard StackGuard().hasRoom(bytes: UInt(depth + 1) * JSONSchemaCompiler.parseBytesPerLevel) else {
            throw GrammarError(.limit, keyword: "depth", pointer: "",
                               "schema nested \(depth) levels deep: too deep to parse on the calling thread's stack")
        }
        do { value = try JSONValue(parsing: text, maximumDepth: JSONSchemaCompiler.maximumDepth) } catch {
            throw GrammarError(.syntax, keyword: "json", pointer: "", error.description)
        }
        try self.init(jsonSchema: value, options: options)
    }

    /// Compiles a JSON Schema.
    public convenience init(jsonSchema schema: JSONValue, options: JSONSchemaOptions = JSONSchemaOptions()) throws(GrammarError) {
        let g = try JSONSchemaCompiler.compile(schema, options: options)
        self.init(nodes: g.nodes, dfas: g.dfas, root: g.root, warnings: g.warnings)
    }
}
