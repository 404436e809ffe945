import Foundation
import Provider

extension LocalLanguageModel.Executor {
    /// Counts exactly, with the model's tokenizer and chat template: every item is rendered
    /// through the same path a request takes, and what it adds is measured against a minimal
    /// conversation, so the counts of a request's pieces add up to the prompt tokens the
    /// request evaluates (`usage.input.totalTokenCount`):
    /// - instructions and transcript entries: the entries rendered as a conversation of their
    ///   own, including a start-of-text token and any system message the template adds to a
    ///   conversation without instructions;
    /// - a prompt: its user turn plus the assistant header that follows it, after instructions;
    /// - tools: what describing them adds to a conversation (in the template's `tools` or the
    ///   system message, as the tool-call dialect renders them);
    /// - a schema: what inlining it adds to a prompt.
    ///
    /// - Throws: `LocalLanguageModelError.chatTemplateFailed` when the template cannot render,
    ///   `LanguageModelError.unsupportedTranscriptContent` for entries a text model cannot take.
    public func tokenCount(for request: LanguageModelExecutorTokenCountRequest, model: LocalLanguageModel) async throws -> Int {
        let context = ContextOptions()
        func count(_ entries: [Transcript.Entry], tools: [Transcript.ToolDefinition] = [], schema: GenerationSchema? = nil,
                   generationPrompt: Bool = false) throws -> Int {
            try preparePrompt(Transcript(entries: entries), schema: schema, contextOptions: context, tools: tools,
                              addGenerationPrompt: generationPrompt).tokens.count
        }
        // The conversation an item is measured in when it cannot stand first: instructions,
        // so a template's default system message is not charged to the item.
        let anchor = Transcript.Entry.instructions(Transcript.Instructions(
            segments: [.text(Transcript.TextSegment(content: "."))], toolDefinitions: []))
        switch request {
        case .instructions(let instructions):
            return try count([.instructions(instructions)])
        case .transcriptEntries(let entries):
            return try count(entries)
        case .prompt(let prompt):
            return try count([anchor, .prompt(prompt)], generationPrompt: true) - count([anchor])
        case .tools(let tools):
            return try count([anchor], tools: tools) - count([anchor])
        case .schema(let schema):
            let prompt = Transcript.Entry.prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: "."))]))
            return try count([anchor, prompt], schema: schema, generationPrompt: true)
                - count([anchor, prompt], generationPrompt: true)
        }
    }
}
