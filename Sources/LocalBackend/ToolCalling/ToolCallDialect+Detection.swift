import ChatTemplate
import Foundation
import Engine
import LoomJSON
import Provider

extension ToolCallDialect {
    /// Chooses the dialect for a model from its chat template and its special tokens.
    ///
    /// The template is *probed*, not pattern-matched alone: it is rendered with a probe tool, a
    /// probe call and a probe tool message, and a feature counts as native only when the probe's
    /// text shows up in the output (a template that ignores `tools`, like SmolLM2's, renders nothing).
    /// The family then comes from the call syntax the template itself writes (`<tool_call>`,
    /// `[TOOL_CALLS][`, Llama 3's `"parameters"` JSON); a template that renders tools in a syntax
    /// Loom does not know gets the fallback dialect, whose instructions then replace the template's.
    ///
    /// - Parameters:
    ///   - template: the model's chat template, nil when it has none (plain-text rendering).
    ///   - specialTokens: texts of the vocabulary's control and user-defined tokens
    ///     (`ToolCallingVocabulary.specialTokenTexts(of:)`); a family whose markers are special
    ///     tokens needs them present.
    public static func detect(template: ChatTemplate?, specialTokens: Set<String> = []) -> ToolCallDialect {
        guard let template else {
            // The plain-text format prints any role, so tool messages are shown as such.
            return ToolCallDialect(family: .fallback, rendersToolsNatively: false, rendersToolCallsNatively: false, toolOutputRole: .tool)
        }
        let probe = TemplateProbe(template)
        let toolRole: ToolOutputRole = probe.rendersToolRole ? .tool : .user
        let source = template.source
        var family: Family?
        if probe.rendersTools && probe.rendersToolCalls, let written = probe.toolCallText {
            // A candidate from the template's text, kept only if the parser reads the template's
            // own rendering of the probe call back (`<tool_call>` also opens XML-style calls in
            // Qwen3-Coder and GLM; Mistral Small 3.2 writes `[TOOL_CALLS]name[ARGS]{…}`).
            let candidate: Family?
            if source.contains("<tool_call>") {
                candidate = .hermes
            } else if source.contains("[TOOL_CALLS]") {
                candidate = .mistral
            } else if source.contains("<|start_header_id|>") {
                candidate = .llama3
            } else {
                candidate = nil
            }
            if let candidate, TemplateProbe.parsesProbeCall(written, as: candidate) { family = candidate }
        }
        // Special-token markers must exist as tokens when the tokenizer lists any special tokens
        // at all, or the model was never trained on the syntax the template writes.
        if let f = family, !specialTokens.isEmpty {
            switch f {
            case .mistral where !specialTokens.contains("[TOOL_CALLS]"): family = nil
            default: break
            }
        }
        guard let family else {
            return ToolCallDialect(family: .fallback, rendersToolsNatively: false, rendersToolCallsNatively: false, toolOutputRole: toolRole,
                                   hasSystemRole: probe.rendersSystemRole)
        }
        return ToolCallDialect(family: family, rendersToolsNatively: true, rendersToolCallsNatively: true,
                               toolOutputRole: probe.rendersToolRole ? .tool : .user)
    }
}

/// Renders a template with probe content to see which tool features it supports.
struct TemplateProbe {
    static let toolName = "loom_probe_tool_7f3a"
    static let outputText = "loom-probe-output-7f3a"
    static let argumentText = "loom-probe-argument-7f3a"

    /// The probe tool appears when the tools are passed in the `tools` variable.
    let rendersTools: Bool
    /// The probe call appears when an assistant message carries `tool_calls`.
    let rendersToolCalls: Bool
    /// The probe output appears when a `tool` message follows the call.
    let rendersToolRole: Bool
    /// The rendered assistant call (the template's own call syntax), when it rendered.
    let toolCallText: String?
    /// A system message renders (some templates, like Gemma's, raise on one).
    let rendersSystemRole: Bool

    init(_ template: ChatTemplate) {
        let tool: JSONValue = ["type": "function", "function": [
            "name": .string(TemplateProbe.toolName), "description": "Probe.",
            "parameters": ["type": "object", "properties": ["q": ["type": "string"]], "required": ["q"]],
        ]]
        let user: JSONValue = ["role": "user", "content": "Hello"]
        let call: JSONValue = ["role": "assistant", "content": "", "tool_calls": [[
            "id": "call12345", "type": "function",
            "function": ["name": .string(TemplateProbe.toolName), "arguments": ["q": .string(TemplateProbe.argumentText)]],
        ]]]
        let output: JSONValue = ["role": "tool", "tool_call_id": "call12345", "name": .string(TemplateProbe.toolName),
                                 "content": .string(TemplateProbe.outputText)]
        let withTools = TemplateProbe.render(template, [user], tools: [tool], generationPrompt: true)
        rendersTools = withTools?.contains(TemplateProbe.toolName) == true
        // Without a generation prompt: some templates add `<think>` to it, which the call turn lacks.
        let before = TemplateProbe.render(template, [user], tools: [tool], generationPrompt: false) ?? ""
        let withCall = TemplateProbe.render(template, [user, call], tools: [tool], generationPrompt: false)
        if let withCall, withCall.contains(TemplateProbe.argumentText) {
            rendersToolCalls = true
            // The assistant part: what follows the shared prefix with the prompt-only rendering.
            let common = zip(before.unicodeScalars, withCall.unicodeScalars).prefix { $0 == $1 }.count
            toolCallText = String(String.UnicodeScalarView(withCall.unicodeScalars.dropFirst(common)))
        } else {
            rendersToolCalls = false
            toolCallText = nil
        }
        let withOutput = TemplateProbe.render(template, [user, call, output], tools: [tool], generationPrompt: true)
            ?? TemplateProbe.render(template, [user, ["role": "assistant", "content": "Calling."], output], tools: nil, generationPrompt: true)
        rendersToolRole = withOutput?.contains(TemplateProbe.outputText) == true
        let system: JSONValue = ["role": "system", "content": .string(TemplateProbe.outputText)]
        rendersSystemRole = TemplateProbe.render(template, [system, user], tools: nil, generationPrompt: true)?
            .contains(TemplateProbe.outputText) == true
    }

    /// Whether `written` (a template's rendering of the probe call turn) holds, from the first
    /// occurrence of the family's opener on, exactly the probe call in that family's syntax.
    static func parsesProbeCall(_ written: String, as family: ToolCallDialect.Family) -> Bool {
        let dialect = ToolCallDialect(family: family, rendersToolsNatively: true, rendersToolCallsNatively: true, toolOutputRole: .tool)
        let openers = family == .llama3 ? ["<|python_tag|>", dialect.callOpener] : [dialect.callOpener]
        guard let start = openers.compactMap({ written.range(of: $0)?.lowerBound }).min() else { return false }
        var parser = ToolCallStreamParser(dialect: dialect, makeCallID: { _ in "" })
        guard let events = try? parser.consume(String(written[start...])) + parser.finish() else { return false }
        let calls = events.compactMap { if case .toolCall(let c) = $0 { return c } else { return nil } }
        return calls.count == 1 && calls[0].toolName == toolName && calls[0].arguments.jsonValue == ["q": .string(argumentText)]
    }

    private static func render(_ template: ChatTemplate, _ messages: [JSONValue], tools: [JSONValue]?, generationPrompt: Bool) -> String? {
        try? template.render(messages: messages, tools: tools, addGenerationPrompt: generationPrompt,
                             bosToken: "", eosToken: "")
    }
}
