/// A function the model can call during a session.
///
/// The session offers each tool to the model (name, description, argument schema), runs
/// `call(arguments:)` when the model calls it — several calls in parallel when the model
/// issues them together — and feeds the output back to the model. An error thrown by `call`
/// surfaces as `LanguageModelSession.ToolCallError`.
public protocol Tool<Arguments, Output>: Sendable {
    /// The arguments the model generates.
    associatedtype Arguments: ConvertibleFromGeneratedContent
    /// What the tool returns to the model.
    associatedtype Output: PromptRepresentable

    /// The tool's unique name (defaults to the type name).
    var name: String { get }
    /// What the tool does, in words the model reads.
    var description: String { get }
    /// The JSON Schema of `Arguments` (defaults to `Arguments.generationSchema`).
    var parameters: GenerationSchema { get }
    /// Whether the argument schema is included in the instructions shown to the model.
    var includesSchemaInInstructions: Bool { get }

    /// Runs the tool.
    func call(arguments: Arguments) async throws -> Output
}

extension Tool {
    /// The type's name.
    public var name: String { String(describing: Self.self) }
    /// Included by default.
    public var includesSchemaInInstructions: Bool { true }
}

extension Tool where Arguments: Generable {
    /// The schema of `Arguments`.
    public var parameters: GenerationSchema { Arguments.generationSchema }
}
