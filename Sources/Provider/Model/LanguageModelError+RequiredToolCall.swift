extension LanguageModelError {
    /// `toolCallingMode: .required` on a request that enables no tools. Apple's on-device model
    /// answers that with `.unsupportedGenerationGuide` (the wording is its device log's), so
    /// every Loom model, and the session before any model, reports it the same way.
    package static var requiredToolCallWithoutTools: LanguageModelError {
        .unsupportedGenerationGuide(.init(
            schemaName: nil, debugDescription: "Tool choice .required requires at least 1 tool be available"))
    }
}
