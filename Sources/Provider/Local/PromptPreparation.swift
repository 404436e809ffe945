import Engine
import Foundation
import LoomJSON

/// A request's prompt, ready for an engine.
struct PreparedPrompt {
    /// The prompt's tokens.
    var tokens: [Int32]
    /// The rendered prompt text (for diagnostics).
    var text: String
    /// Strings that end the response (plain-format models have no end-of-turn token).
    var stopSequences: [String]
    /// The generation prompt already opened a reasoning block.
    var startsInReasoning: Bool
}

extension LocalLanguageModel.Executor {
    /// Renders `transcript` through the chat template (or the plain format for models without
    /// one) and tokenizes it.
    ///
    /// - Parameters:
    ///   - schema: the response schema; its compact JSON is appended to the last prompt unless
    ///     `contextOptions.includeSchemaInPrompt` is false (nil includes it: small models follow
    ///     a schema they can read far better).
    ///   - systemSuffix: text appended to the system message (tool definitions of a fallback dialect).
    ///   - addGenerationPrompt: false renders the transcript alone (for prewarming a prefix).
    func preparePrompt(_ transcript: Transcript, schema: GenerationSchema?, contextOptions: ContextOptions,
                       systemSuffix: String? = nil, tools: [JSONValue]? = nil,
                       toolHistory: TranscriptRendering.ToolHistoryStyle = .fallbackText,
                       addGenerationPrompt: Bool = true) throws -> PreparedPrompt {
        var rendering = TranscriptRendering()
        rendering.toolHistory = toolHistory
        rendering.systemSuffix = systemSuffix
        if let schema, contextOptions.includeSchemaInPrompt ?? true {
            rendering.promptSuffix = "Respond with JSON that matches this JSON Schema:\n" + schema.jsonString
        }
        let messages = try rendering.messages(for: transcript)
        if let template {
            var extra = JSONObject()
            if facts.reasoningMarkers != nil, let level = contextOptions.reasoningLevel {
                // Templates with a thinking switch read `enable_thinking` (Qwen 3 and kin).
                if case .custom(let name) = level, name == "no_think" || name == "none" {
                    extra["enable_thinking"] = .bool(false)
                } else {
                    extra["enable_thinking"] = .bool(true)
                }
            }
            let text: String
            do {
                text = try template.render(messages: messages, tools: tools, addGenerationPrompt: addGenerationPrompt,
                                           bosToken: bosText, eosToken: eosText, extra: extra)
            } catch {
                throw LocalLanguageModelError.chatTemplateFailed("\(error)")
            }
            let addBOS = tokenizer.addBOSByDefault && !(bosText.isEmpty == false && text.hasPrefix(bosText))
            let tokens = tokenizer.encode(text, addBOS: addBOS, parseSpecial: true)
            var startsInReasoning = false
            if let markers = facts.reasoningMarkers {
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                startsInReasoning = addGenerationPrompt && trimmed.hasSuffix(markers.open)
            }
            return PreparedPrompt(tokens: tokens, text: text, stopSequences: [], startsInReasoning: startsInReasoning)
        }
        // No template: the documented plain format ("role: text" lines, ending "assistant:").
        let text = PlainChatFormat.render(messages: messages, addGenerationPrompt: addGenerationPrompt)
        let tokens = tokenizer.encode(text, addBOS: tokenizer.addBOSByDefault, parseSpecial: false)
        return PreparedPrompt(tokens: tokens, text: text, stopSequences: ["\nuser:", "\nsystem:", "\nassistant:", "\ntool:"],
                              startsInReasoning: false)
    }
}
