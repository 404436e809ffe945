import ChatTemplate
import Foundation
import LoomJSON
import Testing

/// The chat templates of the model families Loom runs (Qwen 3 with its thinking switch and tool
/// calls, Phi-3.5, Gemma), read from llama.cpp's `models/templates` (`models/fetch llama-vocab`),
/// render exactly as Python Jinja2 does (`ModelFamilyTemplateCases`, made by
/// `scripts/chat-template-cases/generate.sh`).
@Suite struct ModelFamilyTemplateTests {
    static func cases() throws -> [ChatTemplateSuiteTests.Case] {
        try ModelFamilyTemplateCases.jsonl.split(separator: "\n").map { line in
            let json = try JSONValue(parsing: String(line))
            let template = try #require(json["template"]?.stringValue)
            let conversation = try #require(json["conversation"]?.stringValue)
            let context = try #require(json["context"]?.objectValue)
            return ChatTemplateSuiteTests.Case(template: template, conversation: conversation, context: context,
                                               expected: json["expected"]?.stringValue, error: json["error"]?.stringValue)
        }
    }

    @Test func everyCaseMatchesJinja2() throws {
        let cases = try Self.cases()
        #expect(cases.count == 33)
        var templates = TemplateFileCache()
        for c in cases {
            let label = "\(c.template) / \(c.conversation)"
            let template = try templates.template(at: SharedData.llamaVocab("templates/\(c.template)"))
            do {
                let output = try template.render(context: c.context, now: ChatTemplateSuiteTests.fixedNow)
                if let expected = c.expected {
                    #expect(output.utf8.elementsEqual(expected.utf8),
                            "\(label): \(ChatTemplateSuiteTests.diffWindow(expected: expected, actual: output))")
                } else {
                    Issue.record("\(label): rendered, but Jinja2 raised \(c.error ?? "an error")")
                }
            } catch {
                // raise_exception messages are template text: they must match exactly.
                #expect(c.error == "TemplateError: \(error.message)", "\(label): raised \(error)")
            }
        }
    }

    /// Qwen 3's `enable_thinking` switch: off, the generation prompt closes an empty think block
    /// so the model answers directly; on (or unset), the model opens its own.
    @Test func qwen3ThinkingSwitch() throws {
        let cases = try Self.cases().filter { $0.template == "Qwen-Qwen3-0.6B.jinja" }
        let off = try #require(cases.first { $0.conversation == "j_thinking_disabled" }?.expected)
        let on = try #require(cases.first { $0.conversation == "k_thinking_enabled" }?.expected)
        #expect(off.hasSuffix("<|im_start|>assistant\n<think>\n\n</think>\n\n"))
        #expect(on.hasSuffix("<|im_start|>assistant\n"))
        let calls = try #require(cases.first { $0.conversation == "l_parallel_tool_calls" }?.expected)
        #expect(calls.contains("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Rome\"}}\n</tool_call>"))
    }
}
