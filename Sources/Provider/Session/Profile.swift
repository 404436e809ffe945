/// The building block of a `DynamicProfile`: instructions, to which modifiers add a model, a
/// tool-calling mode and a transcript policy.
///
/// ```swift
/// Profile { Instructions { "Answer briefly." } }
///     .model(localModel)
///     .toolCallingMode(.allowed)
/// ```
public struct Profile: DynamicProfile {
    /// The instructions that lead the transcript while this profile is active; nil keeps the
    /// transcript's own.
    public var instructions: Instructions?

    /// A profile that sets nothing: the session's model and the transcript's instructions stay.
    public init() {
        instructions = nil
    }

    /// A profile whose instructions are built from several pieces.
    public init(@InstructionsBuilder _ instructions: () throws -> Instructions) rethrows {
        self.instructions = try instructions()
    }

    /// A profile with text instructions.
    public init(instructions: some InstructionsRepresentable) {
        self.instructions = instructions.instructionsRepresentation
    }

    /// Never called: `Profile` is primitive.
    public var body: Never { fatalError("Profile has no body") }

    /// Sets the instructions.
    public func _resolve(into resolution: inout DynamicProfileResolution) {
        if let instructions { resolution.instructions = instructions }
    }
}
