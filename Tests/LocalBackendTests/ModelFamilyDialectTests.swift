import ChatTemplate
import Foundation
import LoomJSON
import Testing
@testable import LocalBackend
@testable import Provider

/// The tool-call dialects and transcript rendering of the Qwen 3, Phi-3.5 and Gemma chat
/// templates (llama.cpp's `models/templates`, fetched by `models/fetch llama-vocab`).
@Suite struct ModelFamilyDialectTests {
    static func template(_ name: String) throws -> ChatTemplate {
        try ChatTemplate(source: String(contentsOfFile: SharedData.llamaVocab("templates/\(name)"), encoding: .utf8))
    }

    static let instructed = Transcript(entries: [
        .instructions(.init(segments: [.text(.init(content: "Answer in French."))], toolDefinitions: [])),
        .prompt(.init(segments: [.text(.init(content: "What is the capital of Italy?"))])),
    ])

    /// Qwen 3 writes Hermes-style `<tool_call>\n{json}\n</tool_call>` blocks: the Hermes dialect,
    /// with tools, calls and tool outputs rendered by the template itself.
    @Test func qwen3IsHermes() throws {
        let dialect = ToolCallDialect.detect(template: try Self.template("Qwen-Qwen3-0.6B.jinja"),
                                             specialTokens: ["<|im_start|>", "<|im_end|>", "<tool_call>", "</tool_call>", "<think>", "</think>"])
        #expect(dialect == .hermes, "\(dialect)")
    }

    /// Phi-3.5's and Gemma 2's templates render no tools: the fallback dialect describes them in
    /// the system message (Phi-3.5) or, with no system role, at the start of the first user
    /// message (Gemma).
    @Test(arguments: [("microsoft-Phi-3.5-mini-instruct.jinja", true), ("google-gemma-2-2b-it.jinja", false)])
    func templatesWithoutToolsGetTheFallback(name: String, systemRole: Bool) throws {
        let dialect = ToolCallDialect.detect(template: try Self.template(name))
        #expect(dialect.family == .fallback)
        #expect(!dialect.rendersToolsNatively && !dialect.rendersToolCallsNatively)
        #expect(dialect.hasSystemRole == systemRole, "\(name): \(dialect)")
    }

    /// Gemma 2's template raises on a system message; the instructions open the first user turn
    /// instead, as Gemma 3's own template folds them.
    @Test func gemmaFoldsInstructionsIntoTheFirstUserTurn() throws {
        let template = try Self.template("google-gemma-2-2b-it.jinja")
        var rendering = TranscriptRendering()
        rendering.dialect = ToolCallDialect.detect(template: template)
        let messages = try rendering.messages(for: Self.instructed)
        #expect(messages.count == 1)
        let text = try template.render(messages: messages, tools: nil, addGenerationPrompt: true, bosToken: "<bos>", eosToken: "<eos>")
        #expect(text == "<bos><start_of_turn>user\nAnswer in French.\n\nWhat is the capital of Italy?<end_of_turn>\n<start_of_turn>model\n")
    }

    /// With tools too, the order is instructions, the tools' description, then the question.
    @Test func gemmaFoldsInstructionsBeforeTheToolDescription() throws {
        let template = try Self.template("google-gemma-2-2b-it.jinja")
        var rendering = TranscriptRendering()
        rendering.dialect = ToolCallDialect.detect(template: template)
        rendering.tools = ToolCallingFixtures.tools
        let messages = try rendering.messages(for: Self.instructed)
        let content = try #require(messages.first?["content"]?.stringValue)
        #expect(content.hasPrefix("Answer in French.\n\nYou can call tools."))
        #expect(content.hasSuffix("\n\nWhat is the capital of Italy?"))
        _ = try template.render(messages: messages, tools: nil, addGenerationPrompt: true, bosToken: "<bos>", eosToken: "<eos>")
    }

    /// Templates with a system role keep the system message as it is.
    @Test func systemRoleTemplatesKeepTheSystemMessage() throws {
        var rendering = TranscriptRendering()
        rendering.dialect = ToolCallDialect.detect(template: try Self.template("microsoft-Phi-3.5-mini-instruct.jinja"))
        let messages = try rendering.messages(for: Self.instructed)
        #expect(messages.map { $0["role"]?.stringValue } == ["system", "user"])
    }

    @Test func foldingWithoutAUserMessageMakesOne() {
        let folded = TranscriptRendering.foldingSystemIntoFirstUser([["role": "system", "content": "Be brief."]])
        #expect(folded == [["role": "user", "content": "Be brief."]])
    }
}
