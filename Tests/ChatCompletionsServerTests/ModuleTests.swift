import Testing
@testable import ChatCompletionsServer

@Suite struct ChatCompletionsServerModuleTests {
    @Test func moduleLinks() { _ = ChatCompletionsServerModule.self }
}
