/// A value that can be part of a prompt.
public protocol PromptRepresentable {
    /// The value as a prompt.
    var promptRepresentation: Prompt { get }
}

/// What the user asks the model, as text and (for vision models) images.
public struct Prompt: Sendable, Equatable, PromptRepresentable {
    /// The prompt's content, in order.
    public var segments: [Transcript.Segment]

    /// A prompt from any representable content (a `String`, an image, another prompt).
    public init(_ content: some PromptRepresentable) {
        self = content.promptRepresentation
    }

    /// A prompt from a text string.
    public init(_ text: String) {
        segments = [.text(Transcript.TextSegment(content: text))]
    }

    /// A prompt from segments.
    public init(segments: [Transcript.Segment]) {
        self.segments = segments
    }

    /// A prompt built from several pieces; adjacent text joins with newlines.
    public init(@PromptBuilder _ content: () throws -> Prompt) rethrows {
        self = try content()
    }

    /// Itself.
    public var promptRepresentation: Prompt { self }

    /// The text segments joined with newlines (attachments omitted).
    public var text: String { TextJoining.text(of: segments) }

    /// Equal when the segment contents are equal (segment ids ignored).
    public static func == (a: Prompt, b: Prompt) -> Bool {
        TextJoining.sameContent(a.segments, b.segments)
    }
}

extension String: PromptRepresentable {
    /// The string as a text prompt.
    public var promptRepresentation: Prompt { Prompt(self) }
}

/// Builds a `Prompt` from a list of representable pieces.
@resultBuilder
public enum PromptBuilder {
    /// Joins the pieces in order; adjacent text segments are joined with a newline.
    public static func buildBlock(_ components: any PromptRepresentable...) -> Prompt {
        Prompt(segments: TextJoining.join(components.map { $0.promptRepresentation.segments }))
    }
    /// Joins the pieces of a loop.
    public static func buildArray(_ prompts: [some PromptRepresentable]) -> Prompt {
        Prompt(segments: TextJoining.join(prompts.map { $0.promptRepresentation.segments }))
    }
    /// The first branch of an `if`/`else`.
    public static func buildEither(first component: some PromptRepresentable) -> Prompt { component.promptRepresentation }
    /// The second branch of an `if`/`else`.
    public static func buildEither(second component: some PromptRepresentable) -> Prompt { component.promptRepresentation }
    /// An `if` without `else`: empty when the condition is false.
    public static func buildOptional(_ component: Prompt?) -> Prompt { component ?? Prompt(segments: []) }
    /// An availability-limited piece.
    public static func buildLimitedAvailability(_ prompt: some PromptRepresentable) -> Prompt { prompt.promptRepresentation }
    /// One expression.
    public static func buildExpression<P: PromptRepresentable>(_ expression: P) -> P { expression }
    /// One expression that is already a prompt.
    public static func buildExpression(_ expression: Prompt) -> Prompt { expression }
}

enum TextJoining {
    static func join(_ parts: [[Transcript.Segment]]) -> [Transcript.Segment] {
        var out: [Transcript.Segment] = []
        for segment in parts.joined() {
            if case .text(let next) = segment, case .text(var last)? = out.last {
                last.content += "\n" + next.content
                out[out.count - 1] = .text(last)
            } else {
                out.append(segment)
            }
        }
        return out
    }

    static func text(of segments: [Transcript.Segment]) -> String {
        segments.compactMap { segment -> String? in
            switch segment {
            case .text(let t): return t.content
            case .structure(let s): return s.content.jsonString
            case .attachment: return nil
            }
        }.joined(separator: "\n")
    }

    static func sameContent(_ a: [Transcript.Segment], _ b: [Transcript.Segment]) -> Bool {
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) {
            switch (x, y) {
            case (.text(let p), .text(let q)): if p.content != q.content { return false }
            case (.structure(let p), .structure(let q)): if p.content != q.content || p.source != q.source { return false }
            case (.attachment(let p), .attachment(let q)): if p.content != q.content || p.label != q.label { return false }
            default: return false
            }
        }
        return true
    }
}
