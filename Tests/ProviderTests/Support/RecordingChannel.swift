import Foundation
@testable import Provider
import Synchronization

/// A channel that records every event and assembles them as the session would.
final class RecordingChannel: Sendable {
    private let recorded = Mutex<[LanguageModelExecutorGenerationChannel.Event]>([])
    private let assembler = Mutex(TranscriptAssembler())

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

/// Locates `../shared` beside the package root (or `$LOOM_SHARED`); tests fail when missing.
enum SharedData {
    static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["LOOM_SHARED"] { return URL(fileURLWithPath: env) }
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { break }
        }
        return url.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
}
