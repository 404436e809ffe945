import ChatTemplate
import Engine
import Grammar
import LoomJSON
import Provider

/// Everything tool calling and reasoning need to know about one model, worked out once when its
/// executor is made: the call dialect, the reasoning markers, and which special tokens must be
/// treated as text.
///
/// Per request, `grammar(…)` builds the constraint, `reasoningConfiguration(for:)` maps the
/// reasoning level, and `makeParser(…)` splits the output into text, reasoning and calls.
public struct ModelToolSupport: Sendable {
    /// The model's tool-call dialect.
    public let dialect: ToolCallDialect
    /// The model's reasoning markers; nil when it cannot reason (no `.reasoning` capability).
    public let reasoningMarkers: ReasoningMarkers?
    /// The chat template's source (for template variables such as `enable_thinking`).
    public let templateSource: String?
    /// Control tokens spelling a dialect or reasoning marker: decode them as their text, or the
    /// parser never sees the marker.
    public let markerTokenIDs: Set<Int32>

    /// Detects everything from the template and the tokenizer.
    public init(template: ChatTemplate?, tokenizer: Tokenizer) {
        let special = ToolCallingVocabulary.specialTokenTexts(of: tokenizer)
        let dialect = ToolCallDialect.detect(template: template, specialTokens: special)
        let reasoning = ReasoningMarkers.detect(specialTokens: special)
        self.init(dialect: dialect, reasoningMarkers: reasoning, templateSource: template?.source,
                  markerTokenIDs: ToolCallingVocabulary.markerTokenIDs(of: tokenizer, markers: Self.markers(dialect, reasoning)))
    }

    /// Builds from known parts (tests, models configured by hand).
    public init(dialect: ToolCallDialect, reasoningMarkers: ReasoningMarkers?, templateSource: String?, markerTokenIDs: Set<Int32> = []) {
        self.dialect = dialect
        self.reasoningMarkers = reasoningMarkers
        self.templateSource = templateSource
        self.markerTokenIDs = markerTokenIDs
    }

    /// Every marker string the output may contain (dialect markers and reasoning markers).
    public var markers: [String] { Self.markers(dialect, reasoningMarkers) }

    private static func markers(_ d: ToolCallDialect, _ r: ReasoningMarkers?) -> [String] {
        d.markers + (r.map { [$0.open, $0.close] } ?? [])
    }

    /// Whether calls can be parsed reliably without a grammar: the template teaches the model a
    /// syntax it was trained on (what a pipelined engine, which has no logits, can offer).
    public var supportsUnconstrainedToolCalls: Bool { dialect.family != .fallback && dialect.rendersToolsNatively }

    /// Whether the model reasons (`.reasoning` capability).
    public var supportsReasoning: Bool { reasoningMarkers != nil }

    /// The token byte strings for the grammar vocabulary (markers spelled as text).
    public func grammarTokenBytes(of tokenizer: Tokenizer) -> [[UInt8]] {
        ToolCallingVocabulary.grammarTokenBytes(of: tokenizer, markers: markers)
    }

    /// How a request's reasoning level applies (template variables, thinking on or off).
    public func reasoningConfiguration(for level: ContextOptions.ReasoningLevel?) -> ReasoningConfiguration {
        ReasoningConfiguration.resolve(level: level, templateSource: templateSource, markers: reasoningMarkers)
    }

    /// The grammar for a request, or nil when nothing needs constraining (no tools, no response
    /// schema: free text with calls, if any, parsed afterwards).
    ///
    /// - Parameters:
    ///   - tools: the request's enabled tools.
    ///   - mode: the request's tool-calling mode.
    ///   - response: the response schema's grammar, if any.
    ///   - thinking: whether a reasoning block may open the reply (`ReasoningConfiguration.thinkingEnabled`).
    ///   - renderedPrompt: the prompt as rendered; when it already opened a reasoning block, the
    ///     reply must first close it.
    ///   - options: JSON Schema options for tool arguments.
    ///   - maximumCalls: the most calls in one reply (nil: as many as the dialect allows).
    public func grammar(tools: [Transcript.ToolDefinition], mode: GenerationOptions.ToolCallingMode?, response: Grammar?,
                        thinking: Bool, renderedPrompt: String = "",
                        options: JSONSchemaOptions = JSONSchemaOptions(), maximumCalls: Int? = nil) throws(ToolCallingError) -> Grammar? {
        let opened = reasoningMarkers?.promptOpensReasoning(renderedPrompt) ?? false
        let kind = mode?.kind ?? .allowed
        if tools.isEmpty || kind == .disallowed {
            if kind == .required { throw .noToolsForRequiredCall }
            guard let response else { return nil }
            guard reasoningMarkers != nil, thinking || opened else { return response }
            return try ToolCallGrammar.forRequest(tools: [], dialect: dialect, mode: .disallowed, response: response,
                                                  reasoning: reasoningMarkers, thinking: thinking, startsInReasoning: opened,
                                                  options: options)
        }
        return try ToolCallGrammar.forRequest(tools: tools, dialect: dialect, mode: mode, response: response,
                                              reasoning: reasoningMarkers, thinking: thinking, startsInReasoning: opened,
                                              options: options, maximumCalls: maximumCalls)
    }

    /// A parser for one reply.
    /// - Parameters:
    ///   - toolsEnabled: false when calls must not be recognised (no tools, or `.disallowed`).
    ///   - hasResponseSchema: a schema is in force (calls are then recognised only at the start).
    ///   - thinking: whether reasoning is enabled (as passed to `grammar`); when it is off, marker
    ///     text is answer text, unless the prompt itself opened a reasoning block.
    ///   - renderedPrompt: the prompt as rendered, to see whether it already opened a reasoning block.
    public func makeParser(toolsEnabled: Bool, hasResponseSchema: Bool, thinking: Bool, renderedPrompt: String) -> ToolCallStreamParser {
        let starts = reasoningMarkers?.promptOpensReasoning(renderedPrompt) ?? false
        return ToolCallStreamParser(dialect: toolsEnabled ? dialect : nil, reasoning: thinking || starts ? reasoningMarkers : nil,
                                    startsInReasoning: starts,
                                    callsOnlyAtStart: hasResponseSchema ? true : nil, streamsArguments: true)
    }
}
