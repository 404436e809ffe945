import Foundation
import Grammar
import LocalBackend
import LoomJSON
import Provider
import Testing

/// Generation-mode whitespace stays within the bound docs/guided-generation.md states (none between
/// JSON tokens), even when a hot sampler would happily loop on whitespace tokens: the grammar never
/// offers them.
@Suite(.serialized, .timeLimit(.minutes(30))) struct GenerationWhitespaceTests {
    /// The documented bound: bytes of whitespace in a row outside strings, in generation mode.
    static let whitespaceBound = 0

    /// Ten schemas covering the places whitespace could go: between members, items, nested
    /// containers, after numbers and literals, around alternatives.
    static let schemas: [String] = [
        #"{"type":"object","properties":{"name":{"type":"string","maxLength":20},"age":{"type":"integer","minimum":0}},"required":["name","age"]}"#,
        #"{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":6}"#,
        #"{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","maxLength":8}}},"required":["tags"]}"#,
        #"{"type":"object","properties":{"ok":{"type":"boolean"},"note":{"type":["string","null"]}},"required":["ok","note"]}"#,
        #"{"enum":[{"a":1},[1,2],"x",null]}"#,
        #"{"type":"object","properties":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"]}},"required":["point"]}"#,
        #"{"anyOf":[{"type":"number"},{"type":"array","items":{"type":"boolean"},"maxItems":4}]}"#,
        #"{"type":"object","additionalProperties":{"type":"integer"},"maxProperties":3}"#,
        #"{"type":"array","prefixItems":[{"type":"string","maxLength":5},{"type":"number"}],"items":false}"#,
        #"{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number","exclusiveMinimum":0}},"required":["kind","r"]}"#,
    ]

    /// The longest run of JSON whitespace outside string literals (escapes inside strings skipped).
    static func longestWhitespaceRunOutsideStrings(_ text: String) -> Int {
        var longest = 0, run = 0, inString = false, escaped = false
        for b in text.utf8 {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                run += 1
                longest = max(longest, run)
            } else {
                run = 0
                if b == UInt8(ascii: "\"") { inString = true }
            }
        }
        return longest
    }

    @Test func hotSamplingStaysCompactAndValid() async throws {
        let model = E2EData.smol()
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        var documents = 0
        for (index, json) in Self.schemas.enumerated() {
            let schemaJSON = try JSONValue(parsing: json)
            let schema = try GenerationSchema(jsonSchema: schemaJSON)
            for seed in 0..<5 {
                // The streamed text itself, not the parsed content re-serialized (which would hide
                // any whitespace the model wrote).
                let log = EventLog()
                let options = GenerationOptions(samplingMode: .random(probabilityThreshold: 1, seed: UInt64(100 * index + seed)),
                                                temperature: 1.5, maximumResponseTokens: 40)
                let prompt = "Write a JSON example with lots of spacing, indentation and new lines."
                let request = LanguageModelExecutorGenerationRequest(
                    transcript: Transcript(entries: [.prompt(.init(segments: [.text(.init(content: prompt))]))]),
                    schema: schema, generationOptions: options, contextOptions: ContextOptions(includeSchemaInPrompt: false))
                try await executor.respond(to: request, model: model, streamingInto: log.channel)
                let text = log.texts.joined()
                #expect(try grammarAccepts(text, schema: schemaJSON), "schema \(index) seed \(seed): \(text)")
                #expect(Self.longestWhitespaceRunOutsideStrings(text) <= Self.whitespaceBound, "schema \(index) seed \(seed): \(text)")
                documents += 1
            }
        }
        #expect(documents == 50)
    }

    @Test func whitespaceRunsAreMeasuredOutsideStringsOnly() {
        #expect(Self.longestWhitespaceRunOutsideStrings(#"{"a":"x   y","b":[1,2]}"#) == 0)
        #expect(Self.longestWhitespaceRunOutsideStrings(#"{"a":"x\"  ", "b": 1}"#) == 1)
        #expect(Self.longestWhitespaceRunOutsideStrings("[1,\n\n  2]") == 4)
    }
}
