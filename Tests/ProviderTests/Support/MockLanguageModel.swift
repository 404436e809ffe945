import Foundation
import LoomSupport
import Provider

/// One scripted executor action.
enum MockEvent: Hashable, Sendable {
    /// `.response(appendText)` on the step's response entry.
    case text(String, tokens: Int = 1)
    /// `.response(replaceTextSegment)`.
    case replaceText(String)
    /// `.reasoning(appendText)`; nil id coalesces, "anchor" uses the step's reasoning id.
    case reasoning(String, anchored: Bool = true)
    /// Opens/extends a tool call on the step's tool-calls entry.
    case toolCall(id: String, name: String, arguments: String)
    /// Retracts a tool call.
    case removeToolCall(id: String)
    /// `.response(updateUsage)` with cumulative output total.
    case responseUsage(input: Int, output: Int)
    /// `.toolCalls(updateUsage)`.
    case toolCallsUsage(input: Int, output: Int)
    /// `.response(updateMetadata)`.
    case responseMetadata([String: String])
    /// `.reasoning(updateSignature)` on the anchored reasoning entry.
    case signature(Data)
    /// Add / remove an image attachment on the response entry.
    case addImage(id: String, url: String)
    case removeImage(id: String)
    /// Throws one of the LanguageModelError cases (by index 0…8).
    case fail(errorIndex: Int)
    /// Waits until the test opens gate `name`.
    case waitForGate(String)
    /// Signals gate `name` (so a test can wait for the executor to reach this point).
    case signal(String)
    /// Sleeps in small steps until cancelled (checking cancellation each step).
    case waitForCancellation
    /// Returns without sending anything else.
    case returnEarly
}

/// A scripted model in the spirit of Apple's MockModel: the configuration holds the script.
/// Step index = number of tool-calls entries since the last prompt (clamped to the last
/// step), so a script ending in text terminates a tool loop.
struct MockLanguageModel: LanguageModel {
    typealias Executor = MockExecutor

    var steps: [[MockEvent]]
    var declared: [LanguageModelCapabilities.Capability] = [.toolCalling, .reasoning, .guidedGeneration, .vision]
    /// Distinguishes configurations (and registry buckets) between tests.
    var tag: String = UUID().uuidString

    init(tag: String = UUID().uuidString, capabilities: [LanguageModelCapabilities.Capability] =
         [.toolCalling, .reasoning, .guidedGeneration, .vision], steps: [[MockEvent]]) {
        self.tag = tag
        self.declared = capabilities
        self.steps = steps
    }

    /// A single-step text model.
    init(text chunks: [String], tag: String = UUID().uuidString) {
        self.init(tag: tag, steps: [chunks.map { .text($0) }])
    }

    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities(declared) }

    var executorConfiguration: MockExecutor.Configuration {
        MockExecutor.Configuration(tag: tag, steps: steps)
    }
}

/// What happened to executors of one tag.
struct MockStats: Sendable {
    var created = 0
    var released = 0
    var prewarmed = 0
    var prewarmTranscripts: [Transcript] = []
    var requests: [LanguageModelExecutorGenerationRequest] = []
    var executorIDs: [ObjectIdentifier] = []
    var sawCancellation = false
}

enum MockRegistry {
    static let stats = Locked<[String: MockStats]>([:])
    static func update(_ tag: String, _ body: (inout MockStats) -> Void) {
        stats.withLock { body(&$0[tag, default: MockStats()]) }
    }
    static func get(_ tag: String) -> MockStats { stats.withLock { $0[tag] ?? MockStats() } }
}

/// Cross-task signals for tests that need to observe a request mid-stream.
actor Gates {
    static let shared = Gates()
    private var open: Set<String> = []
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]

    func wait(_ name: String) async {
        if open.contains(name) { return }
        await withCheckedContinuation { waiters[name, default: []].append($0) }
    }

    func signal(_ name: String) {
        open.insert(name)
        for w in waiters.removeValue(forKey: name) ?? [] { w.resume() }
    }
}

/// A reference type so tests can check instance identity and release.
final class MockExecutor: LanguageModelExecutor {
    typealias Model = MockLanguageModel

    struct Configuration: Hashable, Sendable {
        let tag: String
        let steps: [[MockEvent]]
    }

    let configuration: Configuration

    init(configuration: Configuration) throws {
        self.configuration = configuration
        MockRegistry.update(configuration.tag) { $0.created += 1 }
    }

    deinit {
        MockRegistry.update(configuration.tag) { $0.released += 1 }
    }

    func prewarm(model: MockLanguageModel, transcript: Transcript) {
        MockRegistry.update(configuration.tag) {
            $0.prewarmed += 1
            $0.prewarmTranscripts.append(transcript)
        }
        let gate = Self.prewarmedGate(configuration.tag)
        Task { await Gates.shared.signal(gate) }
    }

    /// The gate a prewarm signals once it is recorded, for tests to await.
    static func prewarmedGate(_ tag: String) -> String { "prewarmed \(tag)" }

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: MockLanguageModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        MockRegistry.update(configuration.tag) {
            $0.requests.append(request)
            $0.executorIDs.append(ObjectIdentifier(self))
        }
        var stepIndex = 0
        for entry in request.transcript.entries {
            switch entry {
            case .prompt: stepIndex = 0
            case .toolCalls: stepIndex += 1
            default: break
            }
        }
        let steps = configuration.steps
        // A model configured with no steps answers every request with no events at all.
        let script = steps.isEmpty ? [] : steps[min(stepIndex, steps.count - 1)]
        let responseID = UUID().uuidString
        let toolCallsID = UUID().uuidString
        let reasoningID = UUID().uuidString
        var names: [String: String] = [:]
        for event in script {
            try Task.checkCancellation()
            switch event {
            case .text(let text, let tokens):
                await channel.send(.response(entryID: responseID, action: .appendText(text, tokenCount: tokens)))
            case .replaceText(let text):
                await channel.send(.response(entryID: responseID, action: .replaceTextSegment(text, tokenCount: 0)))
            case .reasoning(let text, let anchored):
                await channel.send(.reasoning(entryID: anchored ? reasoningID : nil, action: .appendText(text, tokenCount: 1)))
            case .toolCall(let id, let name, let arguments):
                names[id] = name
                await channel.send(.toolCalls(entryID: toolCallsID,
                                              action: .toolCall(id: id, name: name, action: .appendArguments(arguments, tokenCount: 1))))
            case .removeToolCall(let id):
                let call = Transcript.ToolCall(id: id, toolName: names[id] ?? "", arguments: GeneratedContent(jsonValue: .null))
                await channel.send(.toolCalls(entryID: toolCallsID, action: .removeToolCall(call)))
            case .responseUsage(let input, let output):
                await channel.send(.response(entryID: responseID, action: .updateUsage(
                    input: .init(totalTokenCount: input, cachedTokenCount: 0),
                    output: .init(totalTokenCount: output, reasoningTokenCount: 0))))
            case .toolCallsUsage(let input, let output):
                await channel.send(.toolCalls(entryID: toolCallsID, action: .updateUsage(
                    input: .init(totalTokenCount: input, cachedTokenCount: 0),
                    output: .init(totalTokenCount: output, reasoningTokenCount: 0))))
            case .responseMetadata(let metadata):
                await channel.send(.response(entryID: responseID, action: .updateMetadata(metadata)))
            case .signature(let data):
                await channel.send(.reasoning(entryID: reasoningID, action: .updateSignature(data, tokenCount: 0)))
            case .addImage(let id, let url):
                await channel.send(.response(entryID: responseID, action: .addAttachmentSegment(
                    Transcript.AttachmentSegment(id: id, content: .image(.init(url: URL(string: url)!))))))
            case .removeImage(let id):
                await channel.send(.response(entryID: responseID, action: .removeAttachmentSegment(
                    Transcript.AttachmentSegment(id: id, content: .image(.init(url: URL(string: "about:blank")!))))))
            case .fail(let index):
                throw MockErrors.all[index]
            case .waitForGate(let name):
                await Gates.shared.wait(name)
            case .signal(let name):
                await Gates.shared.signal(name)
            case .waitForCancellation:
                // Task.sleep throws CancellationError as soon as the task is cancelled; the day
                // is never reached (the suites' time limits end a test that never cancels).
                do {
                    try await Task.sleep(for: .seconds(86_400))
                } catch {
                    MockRegistry.update(configuration.tag) { $0.sawCancellation = true }
                    throw error
                }
            case .returnEarly:
                return
            }
        }
    }
}

/// One instance of every `LanguageModelError` case, in declaration order.
enum MockErrors {
    static let all: [LanguageModelError] = [
        .contextSizeExceeded(.init(contextSize: 4096, tokenCount: 5000, debugDescription: "too long")),
        .rateLimited(.init(resetDate: Date(timeIntervalSince1970: 1_000), debugDescription: "HTTP 429")),
        .guardrailViolation(.init(debugDescription: "unsafe")),
        .refusal(.init(explanation: "I can't help with that.", debugDescription: "declined")),
        .unsupportedCapability(.init(capability: .vision, debugDescription: "no images mid-stream")),
        .unsupportedTranscriptContent(.init(unsupportedContent: [], debugDescription: "bad image")),
        .unsupportedGenerationGuide(.init(schemaName: "Day", debugDescription: "regex anchors")),
        .unsupportedLanguageOrLocale(.init(languageCode: Locale.LanguageCode("xx"), debugDescription: "xx")),
        .timeout(.init(debugDescription: "slow")),
    ]
}
