import ChatTemplate
import Engine
import Foundation
import LoomJSON
import Provider

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
    ///   - tools: the tools offered, described through the template's `tools` variable or, for
    ///     templates without tool support, in the system message (the tool-call dialect decides).
    ///   - addGenerationPrompt: false renders the transcript alone (for prewarming a prefix).
    func preparePrompt(_ transcript: Transcript, schema: GenerationSchema?, contextOptions: ContextOptions,
                       tools: [Transcript.ToolDefinition] = [],
                       addGenerationPrompt: Bool = true) throws -> PreparedPrompt {
        var rendering = TranscriptRendering()
        rendering.dialect = dialect
        rendering.tools = tools
        if let schema, contextOptions.includeSchemaInPrompt ?? true {
            rendering.promptSuffix = "Respond with JSON that matches this JSON Schema:\n" + schema.jsonString
        }
        let messages = try rendering.messages(for: transcript)
        if let template {
            let extra = ReasoningConfiguration.resolve(level: contextOptions.reasoningLevel, templateSource: template.source,
                                                       markers: reasoning).templateVariables
            let text: String
            do {
                text = try template.render(messages: messages, tools: dialect.templateTools(tools),
                                           addGenerationPrompt: addGenerationPrompt,
                                           bosToken: bosText, eosToken: eosText, extra: extra)
            } catch {
                throw LocalLanguageModelError.chatTemplateFailed("\(error)")
            }
            let addBOS = tokenizer.addBOSByDefault && !(bosText.isEmpty == false && text.hasPrefix(bosText))
            var tokens: [Int32]
            let protection = ControlTextProtection(tokenizer: tokenizer)
            if protection.needsProtection(messages) {
                // Message text spelling a special token stays text (see ControlTextProtection).
                let (masked, contents) = protection.placeholders(for: messages)
                let rendered: String
                do {
                    rendered = try template.render(messages: masked, tools: dialect.templateTools(tools),
                                                   addGenerationPrompt: addGenerationPrompt,
                                                   bosToken: bosText, eosToken: eosText, extra: extra)
                } catch {
                    throw LocalLanguageModelError.chatTemplateFailed("\(error)")
                }
                guard let protected = protection.encode(rendered: rendered, contents: contents, addBOS: addBOS) else {
                    throw LanguageModelError.unsupportedTranscriptContent(.init(
                        unsupportedContent: transcript.map { $0 },
                        debugDescription: "a message spells a control token, and this chat template rewrites message text, so it cannot be kept out of the control-token space"))
                }
                tokens = protected
            } else {
                tokens = tokenizer.encode(text, addBOS: addBOS, parseSpecial: true)
            }
            let startsInReasoning = addGenerationPrompt && (reasoning?.promptOpensReasoning(text) ?? false)
            return PreparedPrompt(tokens: tokens, text: text, stopSequences: [], startsInReasoning: startsInReasoning)
        }
        // No template: the documented plain format ("role: text" lines, ending "assistant:").
        let text = PlainChatFormat.render(messages: messages, addGenerationPrompt: addGenerationPrompt)
        let tokens = tokenizer.encode(text, addBOS: tokenizer.addBOSByDefault, parseSpecial: false)
        return PreparedPrompt(tokens: tokens, text: text, stopSequences: ["\nuser:", "\nsystem:", "\nassistant:", "\ntool:"],
                              startsInReasoning: false)
    }
}
