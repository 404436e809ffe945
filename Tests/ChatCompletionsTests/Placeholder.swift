import Testing
@Suite struct ChatCompletionsTestsPlaceholder { @Test func builds() {} }
