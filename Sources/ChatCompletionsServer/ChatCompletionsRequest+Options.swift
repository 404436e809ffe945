// Sampling, length, tools, tool_choice, response_format and reasoning_effort → GenerationOptions,
// tool definitions, GenerationSchema and ContextOptions.
//
// Decisions worth knowing:
// - `temperature: 0` is greedy decoding (as in OpenAI, vLLM and llama.cpp), whatever else is set.
// - Loom's SamplingMode is top-k *or* top-p, so a request setting both (to non-neutral values)
//   is refused. `top_p: 1` and `top_k: 0`/`-1` are the neutral values and mean "off".
// - A `seed` alone means unrestricted sampling with that seed (top-p 1).
// - `logprobs: true` (with `top_logprobs` 0…20) asks the model for per-token log-probabilities;
//   `top_logprobs` without `logprobs: true`, or past 20, is a 400 as on OpenAI.
// - `response_format: json_schema` is enforced by the model's grammar whether or not `strict` is
//   set (strictness can only make the output more conforming); `json_object` is enforced as
//   "any JSON object". The schema is also shown in the prompt (`includeSchemaInPrompt`), as the
//   session's `respond(to:schema:)` does, so the model knows what the grammar will require.
// - A named `tool_choice` offers only that tool and requires a call; the instructions entry still
//   lists every declared tool, so the conversation the model sees is the one the client sent.
import LoomJSON
import Provider

extension ChatCompletionsRequest {
    // MARK: Sampling and length

    static func sampling(_ body: RequestFields) throws(ChatCompletionsServiceError) -> GenerationOptions {
        var options = GenerationOptions()
        let temperature = try body.double("temperature")
        if let t = temperature {
            guard t >= 0, t <= 2 else { throw .invalidValue("temperature", "'temperature' must be between 0 and 2, not \(t).") }
            options.temperature = t
        }
        var topP = try body.double("top_p")
        if let p = topP {
            guard p > 0, p <= 1 else { throw .invalidValue("top_p", "'top_p' must be in (0, 1], not \(p).") }
            if p == 1 { topP = nil }
        }
        var topK = try body.int("top_k")
        if let k = topK {
            guard k >= -1 else { throw .invalidValue("top_k", "'top_k' must be a positive integer (0 or -1 for off), not \(k).") }
            if k <= 0 { topK = nil }
        }
        let seed = try Self.seed(body)
        if temperature == 0 {
            options.samplingMode = .greedy
        } else if let k = topK {
            if topP != nil {
                throw .unsupported("top_k", "'top_k' and 'top_p' cannot be combined on this server; set one of them.")
            }
            options.samplingMode = .random(top: k, seed: seed)
        } else if let p = topP {
            options.samplingMode = .random(probabilityThreshold: p, seed: seed)
        } else if let seed {
            options.samplingMode = .random(probabilityThreshold: 1, seed: seed)
        }

        let maxTokens = try body.int("max_tokens")
        let maxCompletionTokens = try body.int("max_completion_tokens")
        if let a = maxTokens, let b = maxCompletionTokens, a != b {
            throw .invalidValue("max_tokens", "'max_tokens' (\(a)) and 'max_completion_tokens' (\(b)) disagree; send one.")
        }
        if let limit = maxCompletionTokens ?? maxTokens {
            guard limit >= 1 else {
                throw .invalidValue(maxCompletionTokens != nil ? "max_completion_tokens" : "max_tokens",
                                    "The token limit must be at least 1, not \(limit).")
            }
            options.maximumResponseTokens = limit
        }
        return options
    }

    /// `logprobs` and `top_logprobs` (0…20, only with `logprobs: true`, as OpenAI requires).
    static func logProbabilities(_ body: RequestFields) throws(ChatCompletionsServiceError) -> GenerationOptions.LogProbabilities? {
        let wanted = try body.bool("logprobs") ?? false
        let top = try body.int("top_logprobs")
        if let top {
            let limit = GenerationOptions.LogProbabilities.maximumAlternatives
            if top > limit {
                throw .invalidValue("top_logprobs", "Invalid 'top_logprobs': integer above maximum value. Expected a value <= \(limit), but got \(top) instead.",
                                    code: "integer_above_max_value")
            }
            if top < 0 {
                throw .invalidValue("top_logprobs", "Invalid 'top_logprobs': integer below minimum value. Expected a value >= 0, but got \(top) instead.",
                                    code: "integer_below_min_value")
            }
            if !wanted {
                throw .invalidValue("top_logprobs", "'top_logprobs' requires 'logprobs' to be true.")
            }
        }
        return wanted ? GenerationOptions.LogProbabilities(alternatives: top ?? 0) : nil
    }

    /// A signed 64-bit seed (OpenAI's type), or a larger unsigned one; kept as its bit pattern.
    private static func seed(_ body: RequestFields) throws(ChatCompletionsServiceError) -> UInt64? {
        guard let value = body.value("seed") else { return nil }
        guard case .number(let n) = value else { throw .invalidType("seed", expected: "an integer") }
        if let signed = Int64(n.literal) { return UInt64(bitPattern: signed) }
        if let unsigned = UInt64(n.literal) { return unsigned }
        if let i = n.intValue { return UInt64(bitPattern: Int64(i)) }
        throw .invalidType("seed", expected: "a 64-bit integer")
    }

    static func reasoningLevel(_ body: RequestFields) throws(ChatCompletionsServiceError) -> ContextOptions.ReasoningLevel? {
        guard let effort = try body.string("reasoning_effort") else { return nil }
        switch effort {
        case "low": return .light
        case "medium": return .moderate
        case "high": return .deep
        case "": throw .invalidValue("reasoning_effort", "'reasoning_effort' must not be empty.")
        default: return .custom(effort)
        }
    }

    // MARK: Tools

    static func tools(_ body: RequestFields) throws(ChatCompletionsServiceError) -> [Transcript.ToolDefinition] {
        if body.value("functions") != nil || body.value("function_call") != nil {
            throw .unsupported("functions", "The deprecated 'functions' API is not supported; use 'tools'.")
        }
        guard let items = try body.array("tools") else { return [] }
        var out: [Transcript.ToolDefinition] = []
        for (i, item) in items.enumerated() {
            let tool = try RequestFields(item, path: "tools[\(i)]")
            try tool.rejectUnknown(["type", "function"])
            let type = try tool.requiredString("type")
            guard type == "function" else {
                throw .unsupported(tool.param("type"), "Only 'function' tools are supported, not '\(type)'.")
            }
            guard let function = try tool.fields("function") else { throw .missing(tool.param("function")) }
            try function.rejectUnknown(["name", "description", "parameters", "strict"])
            let name = try function.requiredString("name")
            guard Self.isValidFunctionName(name) else {
                throw .invalidValue(function.param("name"),
                                    "Invalid function name '\(name)': use 1 to 64 letters, digits, '_' or '-'.")
            }
            guard !out.contains(where: { $0.name == name }) else {
                throw .invalidValue(function.param("name"), "Duplicate function name '\(name)'.")
            }
            _ = try function.bool("strict")  // arguments are always grammar-constrained; strict only checks the type
            let parameters: GenerationSchema
            do {
                parameters = try GenerationSchema(jsonSchema: function.value("parameters")
                    ?? .object(JSONObject([("type", .string("object")), ("properties", .object(JSONObject()))])))
            } catch {
                throw .invalidValue(function.param("parameters"), "Invalid JSON Schema for the function parameters: \(error)",
                                    code: "invalid_schema")
            }
            out.append(Transcript.ToolDefinition(name: name, description: try function.string("description") ?? "",
                                                 parameters: parameters))
        }
        return out
    }

    static func isValidFunctionName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
    }

    static func toolChoice(_ body: RequestFields, tools: [Transcript.ToolDefinition]) throws(ChatCompletionsServiceError)
        -> (mode: GenerationOptions.ToolCallingMode?, enabled: [Transcript.ToolDefinition]) {
        guard let choice = body.value("tool_choice") else { return (nil, tools) }
        switch choice {
        case .string("none"):
            return (.disallowed, tools)
        case .string("auto"):
            return (.allowed, tools)
        case .string("required"):
            guard !tools.isEmpty else { throw .invalidValue("tool_choice", "'tool_choice' is 'required' but no tools were given.") }
            return (.required, tools)
        case .string(let other):
            throw .invalidValue("tool_choice", "'tool_choice' must be 'none', 'auto', 'required' or a function, not '\(other)'.")
        case .object:
            let named = try RequestFields(choice, path: "tool_choice")
            let type = try named.requiredString("type")
            guard type == "function" else {
                throw .unsupported("tool_choice.type", "Only a 'function' tool_choice is supported, not '\(type)'.")
            }
            guard let function = try named.fields("function") else { throw .missing("tool_choice.function") }
            let name = try function.requiredString("name")
            guard let tool = tools.first(where: { $0.name == name }) else {
                throw .invalidValue("tool_choice.function.name", "'tool_choice' names '\(name)', which is not in 'tools'.")
            }
            return (.required, [tool])
        default:
            throw .invalidType("tool_choice", expected: "a string or an object")
        }
    }

    // MARK: Structured output

    static func responseFormat(_ body: RequestFields) throws(ChatCompletionsServiceError) -> GenerationSchema? {
        guard let format = try body.fields("response_format") else { return nil }
        let type = try format.requiredString("type")
        switch type {
        case "text":
            try format.rejectUnknown(["type"])
            return nil
        case "json_object":
            try format.rejectUnknown(["type"])
            return try! GenerationSchema(jsonSchema: .object(JSONObject([("type", .string("object"))])))
        case "json_schema":
            try format.rejectUnknown(["type", "json_schema"])
            guard let wrapper = try format.fields("json_schema") else { throw .missing(format.param("json_schema")) }
            try wrapper.rejectUnknown(["name", "description", "schema", "strict"])
            let name = try wrapper.requiredString("name")
            guard Self.isValidFunctionName(name) else {
                throw .invalidValue(wrapper.param("name"), "Invalid schema name '\(name)': use 1 to 64 letters, digits, '_' or '-'.")
            }
            _ = try wrapper.string("description")
            _ = try wrapper.bool("strict")
            // The document reaches the executor exactly as sent (the wire name is not merged
            // into it: `title` is the schema's own business).
            guard let document = wrapper.value("schema") else {
                throw .missing(wrapper.param("schema"))
            }
            do {
                return try GenerationSchema(jsonSchema: document)
            } catch {
                throw .invalidValue(wrapper.param("schema"), "Invalid JSON Schema: \(error)", code: "invalid_schema")
            }
        default:
            throw .invalidValue(format.param("type"),
                                "'response_format.type' must be 'text', 'json_object' or 'json_schema', not '\(type)'.")
        }
    }
}
