import Testing
@Suite struct GrammarTestsPlaceholder { @Test func builds() {} }
