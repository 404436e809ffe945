import Testing
@Suite struct HTTPServerTestsPlaceholder { @Test func builds() {} }
