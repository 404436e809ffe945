import Testing
@Suite struct ProviderTestsPlaceholder { @Test func builds() {} }
