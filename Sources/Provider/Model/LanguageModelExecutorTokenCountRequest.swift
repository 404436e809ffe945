/// One item whose tokens `LanguageModelSession.tokenCount(for:)` asks an executor to count.
///
/// Each item is counted alone, as the model renders it, so the counts of the pieces of a
/// request add up to the prompt tokens the model evaluates for that request:
/// - `.instructions` and `.transcriptEntries`: the entries rendered as a conversation of their
///   own (with any start-of-text token, and whatever a chat template adds to a conversation
///   that has no instructions of its own);
/// - `.prompt`: one user turn and the assistant header the model answers after, as it follows
///   earlier turns;
/// - `.tools`: what describing the tools adds to a conversation;
/// - `.schema`: what inlining the schema adds to a prompt.
///
/// Non-frozen: executors switch with a `default` arm.
public enum LanguageModelExecutorTokenCountRequest: Sendable {
    /// A prompt, as the user turn of a request.
    case prompt(Transcript.Prompt)
    /// Instructions, as the conversation's first entry (their tool definitions are counted by `.tools`).
    case instructions(Transcript.Instructions)
    /// Tool definitions, as the model is told about them.
    case tools([Transcript.ToolDefinition])
    /// A response schema, as inlined into the prompt.
    case schema(GenerationSchema)
    /// Transcript entries, rendered together as a conversation.
    case transcriptEntries([Transcript.Entry])

    /// The text an estimate counts: what the item says, without any chat template.
    var estimatedText: String {
        switch self {
        case .prompt(let p): return TextJoining.text(of: p.segments)
        case .instructions(let i): return TextJoining.text(of: i.segments)
        case .tools(let tools):
            return tools.map { "\($0.name): \($0.description) \($0.parameters.jsonString)" }.joined(separator: "\n")
        case .schema(let schema): return schema.jsonString
        case .transcriptEntries(let entries): return entries.map(\.description).joined(separator: "\n")
        }
    }

    /// An estimate for executors without a tokenizer: one token per four UTF-8 bytes (Apple
    /// documents three to four characters per token for Latin scripts), rounded up.
    public var estimatedTokenCount: Int {
        (estimatedText.utf8.count + 3) / 4
    }
}
