/// A value that can be part of a session's instructions.
public protocol InstructionsRepresentable {
    /// The value as instructions.
    var instructionsRepresentation: Instructions { get }
}

/// What the developer tells the model about its role and rules (the system prompt).
public struct Instructions: Sendable, Equatable, InstructionsRepresentable {
    /// The instructions' content, in order.
    public var segments: [Transcript.Segment]

    /// Instructions from any representable content.
    public init(_ content: some InstructionsRepresentable) {
        self = content.instructionsRepresentation
    }

    /// Instructions from text.
    public init(_ text: String) {
        segments = [.text(Transcript.TextSegment(content: text))]
    }

    /// Instructions from segments.
    public init(segments: [Transcript.Segment]) {
        self.segments = segments
    }

    /// Instructions built from several pieces; adjacent text joins with newlines.
    public init(@InstructionsBuilder _ content: () throws -> Instructions) rethrows {
        self = try content()
    }

    /// Itself.
    public var instructionsRepresentation: Instructions { self }

    /// The text segments joined with newlines.
    public var text: String { TextJoining.text(of: segments) }

    /// Equal when the segment contents are equal (segment ids ignored).
    public static func == (a: Instructions, b: Instructions) -> Bool {
        TextJoining.sameContent(a.segments, b.segments)
    }
}

extension String: InstructionsRepresentable {
    /// The string as instructions.
    public var instructionsRepresentation: Instructions { Instructions(self) }
}

/// Builds `Instructions` from a list of representable pieces.
@resultBuilder
public enum InstructionsBuilder {
    /// Joins the pieces in order; adjacent text segments are joined with a newline.
    public static func buildBlock(_ components: any InstructionsRepresentable...) -> Instructions {
        Instructions(segments: TextJoining.join(components.map { $0.instructionsRepresentation.segments }))
    }
    /// Joins the pieces of a loop.
    public static func buildArray(_ parts: [some InstructionsRepresentable]) -> Instructions {
        Instructions(segments: TextJoining.join(parts.map { $0.instructionsRepresentation.segments }))
    }
    /// The first branch of an `if`/`else`.
    public static func buildEither(first component: some InstructionsRepresentable) -> Instructions {
        component.instructionsRepresentation
    }
    /// The second branch of an `if`/`else`.
    public static func buildEither(second component: some InstructionsRepresentable) -> Instructions {
        component.instructionsRepresentation
    }
    /// An `if` without `else`: empty when the condition is false.
    public static func buildOptional(_ component: Instructions?) -> Instructions { component ?? Instructions(segments: []) }
    /// An availability-limited piece.
    public static func buildLimitedAvailability(_ part: some InstructionsRepresentable) -> Instructions {
        part.instructionsRepresentation
    }
    /// One expression.
    public static func buildExpression<I: InstructionsRepresentable>(_ expression: I) -> I { expression }
    /// One expression that is already instructions.
    public static func buildExpression(_ expression: Instructions) -> Instructions { expression }
}
