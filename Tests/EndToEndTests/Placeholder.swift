import Testing
@Suite struct EndToEndTestsPlaceholder { @Test func builds() {} }
