import ChatTemplate
import Engine
import Testing

/// Reading a chat template and its special tokens out of GGUF metadata.
@Suite struct GGUFChatTemplateTests {
    static let now = TemplateDateTime(year: 2026, month: 11, day: 30)

    @Test func defaultModelTemplateAndSpecialTokens() throws {
        let file = try GGUFFile(path: SharedData.defaultModel)
        let source = try #require(file.chatTemplateSource())
        #expect(!file.bosTokenText.isEmpty)
        let output = try ChatTemplate(source: source).render(
            messages: [["role": "user", "content": "Hi!"]], addGenerationPrompt: true,
            bosToken: file.bosTokenText, eosToken: file.eosTokenText, now: GGUFChatTemplateTests.now)
        #expect(output.contains("Hi!"))
        #expect(try file.chatTemplate() != nil)
    }

    @Test func modelWithoutTemplate() throws {
        let file = try GGUFFile(path: SharedData.path("models/stories260K.gguf"))
        #expect(file.chatTemplateSource() == nil)
        #expect(file.chatTemplateSource(named: "tool_use") == nil)
    }
}
