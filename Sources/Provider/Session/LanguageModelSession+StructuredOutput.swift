import Foundation
import LoomJSON

/// How a request's output becomes the caller's content, for text and structured output alike.
struct OutputFormat<Content: Sendable>: Sendable {
    /// The schema sent to the executor; nil for plain text.
    let schema: GenerationSchema?
    /// Builds the final content from the complete output text.
    let complete: @Sendable (String) throws -> (Content, GeneratedContent)

    static func text() -> OutputFormat<String> where Content == String {
        OutputFormat<String>(schema: nil) { text in (text, GeneratedContent(jsonValue: .string(text))) }
    }

    /// Structured output: the text must be one complete JSON value, then `convert` builds the type.
    static func structured(schema: GenerationSchema, convert: @escaping @Sendable (GeneratedContent) throws -> Content)
        -> OutputFormat<Content>
    {
        OutputFormat(schema: schema) { text in
            let content: GeneratedContent
            do {
                content = try GeneratedContent(json: text)
            } catch {
                let partial = (try? GeneratedContent(partialJSON: text)) ?? nil
                let why = partial.map { !$0.isComplete } == true
                    ? "The model's output ended before the JSON value was complete (was maximumResponseTokens reached?)."
                    : "The model's output is not valid JSON."
                throw GeneratedContent.ParsingError(rawContent: text, underlyingError: error, debugDescription: why)
            }
            do {
                return (try convert(content), content)
            } catch var parsing as GeneratedContent.ParsingError {
                parsing.rawContent = text
                throw parsing
            } catch {
                throw GeneratedContent.ParsingError(rawContent: text, underlyingError: error,
                    debugDescription: "The generated content does not match \(Content.self): \(error)")
            }
        }
    }

    /// The format for a `Generable` type: text for `String`, structured otherwise.
    static func generable<G: Generable>(_ type: G.Type) -> OutputFormat<G> {
        if G.self == String.self {
            return OutputFormat<G>(schema: nil) { text in
                (text as! G, GeneratedContent(jsonValue: .string(text)))
            }
        }
        return .structured(schema: G.generationSchema) { try G($0) }
    }
}

extension LanguageModelSession {
    /// Runs a turn and converts its output with `format`.
    func respond<Content: Sendable>(
        prompt: Prompt, format: OutputFormat<Content>, includeSchemaInPrompt: Bool, options: GenerationOptions,
        onText: (@Sendable (String) -> Void)? = nil
    ) async throws -> Response<Content> {
        try await runTurn(prompt: prompt, schema: format.schema, includeSchemaInPrompt: includeSchemaInPrompt,
                          options: options, onText: onText) { output in
            let (content, raw) = try format.complete(output.text)
            return Response(content: content, rawContent: raw, transcriptEntries: output.entries,
                            toolCalls: output.toolCalls, usage: output.usage)
        }
    }

    /// A stream of a `Generable` type: snapshots parse the text generated so far.
    func stream<Content: Generable>(
        prompt: Prompt, format: OutputFormat<Content>, includeSchemaInPrompt: Bool, options: GenerationOptions
    ) -> ResponseStream<Content> {
        let structured = format.schema != nil
        return ResponseStream { [self] yield in
            let id = GenerationID()
            return try await respond(prompt: prompt, format: format, includeSchemaInPrompt: includeSchemaInPrompt,
                                     options: options) { text in
                let raw: GeneratedContent
                if structured {
                    guard let partial = (try? GeneratedContent(partialJSON: text)) ?? nil else { return }
                    raw = partial
                } else {
                    raw = GeneratedContent(jsonValue: .string(text), isComplete: false)
                }
                var identified = raw
                identified.id = id
                guard let content = try? Content.PartiallyGenerated(identified) else { return }
                yield(ResponseStream<Content>.Snapshot(content: content, rawContent: identified))
            }
        }
    }
}
