import Provider

/// Case payloads as optionals, so a test unwraps the case it expects with `#require`.
extension Transcript.Entry {
    var instructionsValue: Transcript.Instructions? { if case .instructions(let i) = self { return i }; return nil }
    var promptValue: Transcript.Prompt? { if case .prompt(let p) = self { return p }; return nil }
    var toolCallsValue: Transcript.ToolCalls? { if case .toolCalls(let t) = self { return t }; return nil }
    var toolOutputValue: Transcript.ToolOutput? { if case .toolOutput(let t) = self { return t }; return nil }
}

extension Transcript.Segment {
    var textValue: Transcript.TextSegment? { if case .text(let t) = self { return t }; return nil }
    var attachmentValue: Transcript.AttachmentSegment? { if case .attachment(let a) = self { return a }; return nil }
}
