import Grammar
import LoomJSON
import Provider

/// The grammar that makes any model's tool calls well formed.
///
/// Shape (R: optional reasoning block, T: free text that never contains the call opener nor the
/// reasoning opener, S: the response grammar when a schema is requested, C: one call, Cs: calls):
///
/// | mode | tag dialects (`.hermes`, `.fallback`) | whole-reply dialects (`.llama3`, `.mistral`) | with a response schema |
/// |---|---|---|---|
/// | allowed (nil) | `R? T Cs?` | `R? (T \| Cs)` | `R? (S \| Cs)` |
/// | required | `R? Cs` | `R? Cs` | `R? Cs` |
/// | disallowed | `R? T` | `R? T` | `R? S` |
///
/// Because T cannot contain the opener, text can never start a call half-way, and the first
/// occurrence of the opener in the output is exactly where the calls begin (the parser relies on
/// it). A call may come first, so a small model reaches it with its first tokens. Each call is
/// `{"name": "<tool>", "arguments": <args>}` (Llama 3: `"parameters"`), one alternative per tool, with
/// `<args>` compiled from that tool's `parameters` schema; several calls are allowed where the
/// dialect allows them (tag blocks separated by a newline; Mistral's array), up to `maximumCalls`.
public enum ToolCallGrammar {
    /// Builds the grammar for a request.
    /// - Parameters:
    ///   - tools: the enabled tools (empty: no calls possible; `.required` then throws).
    ///   - dialect: the model's dialect.
    ///   - mode: the request's tool-calling mode (nil = `.allowed`).
    ///   - response: the grammar of the response when a schema is requested; nil for free text.
    ///   - reasoning: the model's reasoning markers when thinking is enabled; a reasoning block may
    ///     then open the output.
    ///   - startsInReasoning: the prompt already opened the reasoning block, so the output starts
    ///     inside it and must close it first (needs `reasoning`).
    ///   - options: JSON Schema options for the arguments (strictness, whitespace).
    ///   - maximumCalls: the most calls in one reply (nil: unbounded where the dialect allows several).
    public static func make(tools: [Transcript.ToolDefinition], dialect: ToolCallDialect,
                            mode: GenerationOptions.ToolCallingMode? = nil, response: Grammar? = nil,
                            reasoning: ReasoningMarkers? = nil, startsInReasoning: Bool = false, options: JSONSchemaOptions = JSONSchemaOptions(),
                            maximumCalls: Int? = nil) throws(ToolCallingError) -> Grammar {
        let kind = mode?.kind ?? .allowed
        do {
            var opening: [Grammar] = []
            if let reasoning {
                opening.append(startsInReasoning ? try reasoningRest(reasoning) : try .optional(reasoningBlock(reasoning)))
            }
            let free = try response ?? freeText(dialect: dialect, reasoning: reasoning)
            if kind == .disallowed || tools.isEmpty {
                if kind == .required { throw ToolCallingError.noToolsForRequiredCall }
                return try .sequence(opening + [free])
            }
            let calls = try callsGrammar(tools: tools, dialect: dialect, options: options, maximumCalls: maximumCalls)
            switch kind {
            case .required:
                return try .sequence(opening + [calls])
            case .allowed, .disallowed:
                if response == nil && dialect.allowsTextBeforeCalls {
                    return try .sequence(opening + [free, .optional(calls)])
                }
                return try .sequence(opening + [.choice([free, calls])])
            }
        } catch let error as ToolCallingError {
            throw error
        } catch {
            throw ToolCallingError.grammarComposition(reason: "\(error)")
        }
    }

    /// The grammar for one request as an executor sees it: `reasoning` is the model's markers
    /// (nil when it cannot reason), `thinking` whether the request lets it reason, and
    /// `startsInReasoning` whether the rendered generation prompt already opened a reasoning
    /// block (`ReasoningMarkers.promptOpensReasoning`). A prompt that opened the block wins over
    /// `thinking`: the model is inside its thoughts whatever the request said, so the output
    /// must close them before its text, JSON or calls.
    public static func forRequest(tools: [Transcript.ToolDefinition], dialect: ToolCallDialect,
                                  mode: GenerationOptions.ToolCallingMode?, response: Grammar?,
                                  reasoning: ReasoningMarkers?, thinking: Bool, startsInReasoning: Bool,
                                  options: JSONSchemaOptions = JSONSchemaOptions(),
                                  maximumCalls: Int? = nil) throws(ToolCallingError) -> Grammar {
        let opened = startsInReasoning && reasoning != nil
        return try make(tools: tools, dialect: dialect, mode: mode, response: response,
                        reasoning: thinking || opened ? reasoning : nil, startsInReasoning: opened,
                        options: options, maximumCalls: maximumCalls)
    }

    /// Free text: any UTF-8 without the call opener (and without the reasoning opener, so a
    /// reasoning block cannot start in the middle of the answer).
    static func freeText(dialect: ToolCallDialect, reasoning: ReasoningMarkers?) throws(GrammarError) -> Grammar {
        var forbidden = [dialect.callOpener] + dialect.markers
        if let reasoning { forbidden += [reasoning.open, reasoning.close] }
        return try .text(excluding: forbidden)
    }

    /// `<think>` text `</think>` and the whitespace models put after it.
    static func reasoningBlock(_ markers: ReasoningMarkers) throws(GrammarError) -> Grammar {
        try .sequence([Grammar(literal: markers.open), .text(excluding: [markers.close, markers.open]), Grammar(literal: markers.close),
                       Grammar(gbnf: "root ::= [ \\t\\n]*")])
    }

    /// The rest of a reasoning block the prompt opened: thoughts, the close marker, whitespace.
    static func reasoningRest(_ markers: ReasoningMarkers) throws(GrammarError) -> Grammar {
        try .sequence([.text(excluding: [markers.close, markers.open]), Grammar(literal: markers.close), Grammar(gbnf: "root ::= [ \\t\\n]*")])
    }

    /// One or more calls in the dialect's envelope.
    static func callsGrammar(tools: [Transcript.ToolDefinition], dialect: ToolCallDialect, options: JSONSchemaOptions,
                             maximumCalls: Int?) throws -> Grammar {
        var objects: [Grammar] = []
        for tool in tools {
            let arguments: Grammar
            do { arguments = try Grammar(jsonSchema: objectSchema(tool.parameters.jsonSchema), options: options) } catch {
                throw ToolCallingError.invalidParameterSchema(toolName: tool.name, reason: error.description)
            }
            var head = "{\"name\": "
            JSONValue.writeString(tool.name, into: &head)
            head += ", \"\(dialect.argumentsKey)\": "
            objects.append(try .sequence([Grammar(literal: head), arguments, Grammar(literal: "}")]))
        }
        let object = try Grammar.choice(objects)
        let most = dialect.allowsMultipleCalls ? maximumCalls : 1
        let more = most.map { max($0 - 1, 0) }
        switch dialect.family {
        case .hermes, .fallback:
            let block = try Grammar.sequence([Grammar(literal: dialect.callOpener + dialect.blockPadding), object,
                                              Grammar(literal: dialect.blockPadding + (dialect.blockCloser ?? ""))])
            let next = try Grammar.sequence([Grammar(literal: "\n"), block])
            return try .sequence([block, .repetition(next, minimum: 0, maximum: more)])
        case .mistral:
            let next = try Grammar.sequence([Grammar(literal: ", "), object])
            return try .sequence([Grammar(literal: dialect.callOpener + "["), object,
                                  .repetition(next, minimum: 0, maximum: more), Grammar(literal: "]")])
        case .llama3:
            return object
        }
    }

    /// Arguments are always an object: a schema that does not say so gets `"type": "object"`.
    static func objectSchema(_ schema: JSONValue) -> JSONValue {
        guard case .object(var o) = schema else {
            return ["type": "object"]
        }
        if o["type"] == nil && o["$ref"] == nil && o["anyOf"] == nil && o["oneOf"] == nil && o["allOf"] == nil {
            o["type"] = "object"
        }
        return .object(o)
    }
}
