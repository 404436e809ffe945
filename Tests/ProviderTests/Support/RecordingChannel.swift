import Foundation
@testable import Provider
import LoomSupport

/// A channel that records every event and assembles them as the session would.
final class RecordingChannel: Sendable {
    private let recorded = Locked<[LanguageModelExecutorGenerationChannel.Event]>([])
    private let assembler = Locked(TranscriptAssembler())

    var channel: LanguageModelExecutorGenerationChannel {
        LanguageModelExecutorGenerationChannel { [self] event in
            recorded.withLock { $0.append(event) }
            assembler.withLock { $0.apply(event) }
        }
    }

    var events: [LanguageModelExecutorGenerationChannel.Event] { recorded.withLock { $0 } }
    var entries: [Transcript.Entry] { assembler.withLock { $0.finalEntries() } }
    var liveEntries: [Transcript.Entry] { assembler.withLock { $0.entries } }

    /// Sends events straight into the channel.
    func send(_ events: [LanguageModelExecutorGenerationChannel.Event]) async {
        let channel = self.channel
        for e in events { await channel.send(e) }
    }
}

extension Transcript.Entry {
    var instructionsValue: Transcript.Instructions? { if case .instructions(let i) = self { return i }; return nil }
    var responseValue: Transcript.Response? { if case .response(let r) = self { return r }; return nil }
    var reasoningValue: Transcript.Reasoning? { if case .reasoning(let r) = self { return r }; return nil }
    var toolCallsValue: Transcript.ToolCalls? { if case .toolCalls(let t) = self { return t }; return nil }
    var toolOutputValue: Transcript.ToolOutput? { if case .toolOutput(let t) = self { return t }; return nil }
    var promptValue: Transcript.Prompt? { if case .prompt(let p) = self { return p }; return nil }
    var kindName: String {
        switch self {
        case .instructions: return "instructions"
        case .prompt: return "prompt"
        case .toolCalls: return "toolCalls"
        case .toolOutput: return "toolOutput"
        case .response: return "response"
        case .reasoning: return "reasoning"
        }
    }
}

func text(of segments: [Transcript.Segment]) -> String {
    segments.compactMap { if case .text(let t) = $0 { return t.content }; return nil }.joined()
}

extension Transcript.Segment {
    var attachmentValue: Transcript.AttachmentSegment? { if case .attachment(let a) = self { return a }; return nil }
    var structureValue: Transcript.StructuredSegment? { if case .structure(let s) = self { return s }; return nil }
}
