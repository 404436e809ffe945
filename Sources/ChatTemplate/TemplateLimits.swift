/// Budgets that stop hostile or runaway templates with an error instead of a crash or hang.
public struct TemplateLimits: Sendable {
    /// Most bytes a render may produce.
    public var maximumOutputBytes: Int
    /// Most statements, loop iterations and calls a render may execute.
    public var maximumSteps: Int
    /// Deepest nesting of macro calls.
    public var maximumCallDepth: Int
    /// Deepest nesting of statements and expressions being evaluated at once (across macro
    /// calls); bounds the native stack a render uses.
    public var maximumNesting: Int

    /// Creates limits.
    public init(maximumOutputBytes: Int = 64 << 20, maximumSteps: Int = 20_000_000, maximumCallDepth: Int = 64,
                maximumNesting: Int = 250) {
        self.maximumOutputBytes = maximumOutputBytes
        self.maximumSteps = maximumSteps
        self.maximumCallDepth = maximumCallDepth
        self.maximumNesting = maximumNesting
    }

    /// Generous limits for chat templates.
    public static let standard = TemplateLimits()
}
