// A LanguageModel whose executor plays a script of channel events, records every request it
// receives, and can stop at handshakes the test controls — so tests prove streaming,
// admission and cancellation by causality, never by timing.
import Foundation
import LoomSupport
import Provider

/// A failure the script can throw (an index into typed `LanguageModelError`s; the
/// configuration must be Hashable, and errors are not).
enum ScriptedFailure: Hashable, Sendable {
    case contextOverflow
    case rateLimited(retryAfterSeconds: Int)
    case guardrail
    case refusal(String)
    case unsupportedGuide
    case timeout
    case custom(String)

    var error: any Error {
        switch self {
        case .contextOverflow:
            LanguageModelError.contextSizeExceeded(.init(contextSize: 2048, tokenCount: 3000, debugDescription: "prompt too long"))
        case .rateLimited(let seconds):
            LanguageModelError.rateLimited(.init(resetDate: Date().addingTimeInterval(Double(seconds)), debugDescription: "busy"))
        case .guardrail:
            LanguageModelError.guardrailViolation(.init(debugDescription: "flagged"))
        case .refusal(let text):
            LanguageModelError.refusal(.init(explanation: text, debugDescription: "declined"))
        case .unsupportedGuide:
            LanguageModelError.unsupportedGenerationGuide(.init(schemaName: "Day", debugDescription: "lookbehind"))
        case .timeout:
            LanguageModelError.timeout(.init(debugDescription: "slow"))
        case .custom(let text):
            ScriptedEngineError(description: text)
        }
    }
}

struct ScriptedEngineError: Error, CustomStringConvertible {
    let description: String
}

/// One scripted executor action.
enum ScriptStep: Hashable, Sendable {
    /// Response text (credited `tokens` tokens).
    case text(String, tokens: Int = 1)
    /// Response text of one token, announced with its log-probability entry (as LocalLanguageModel
    /// does) when the request asked: logprob -0.5, and the requested number of alternatives
    /// `alt0`, `alt1`, … at -1, -2, ….
    case loggedText(String)
    /// Replaces the current response text segment.
    case replaceText(String)
    /// Reasoning text.
    case reasoning(String)
    /// Opens or extends a tool call.
    case toolCall(id: String, name: String, arguments: String)
    /// Cumulative usage on the response entry.
    case usage(input: Int, cached: Int, output: Int)
    /// Throws.
    case fail(ScriptedFailure)
    /// Opens gate `name` (tells the test the executor got here).
    case signal(String)
    /// Waits until the test opens gate `name`.
    case waitFor(String)
    /// Waits for cancellation, then opens gate `"<tag>.cancelled"` and throws.
    case waitForCancellation
}

struct ScriptedLanguageModel: LanguageModel {
    typealias Executor = ScriptedExecutor

    var tag = UUID().uuidString
    var script: [ScriptStep]
    var declared: [LanguageModelCapabilities.Capability] = [.toolCalling, .guidedGeneration, .reasoning, .vision]
    /// When set, building the executor blocks (on its own thread) until this gate opens.
    var loadGate: String?

    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities(declared) }
    var executorConfiguration: ScriptedExecutor.Configuration {
        .init(tag: tag, script: script, loadGate: loadGate)
    }
}

/// What executors of one tag saw.
struct ScriptRecord: Sendable {
    var executorsBuilt = 0
    var prewarms = 0
    var requests: [LanguageModelExecutorGenerationRequest] = []
}

enum ScriptRegistry {
    static let records = Locked<[String: ScriptRecord]>([:])
    static func update(_ tag: String, _ body: (inout ScriptRecord) -> Void) {
        records.withLock { body(&$0[tag, default: ScriptRecord()]) }
    }
    static func record(_ tag: String) -> ScriptRecord { records.withLock { $0[tag] ?? ScriptRecord() } }
}

final class ScriptedExecutor: LanguageModelExecutor {
    typealias Model = ScriptedLanguageModel

    struct Configuration: Hashable, Sendable {
        let tag: String
        let script: [ScriptStep]
        let loadGate: String?
    }

    let configuration: Configuration

    init(configuration: Configuration) throws {
        self.configuration = configuration
        if let gate = configuration.loadGate { TestGates.shared.blockingWait(gate) }
        ScriptRegistry.update(configuration.tag) { $0.executorsBuilt += 1 }
    }

    func prewarm(model: ScriptedLanguageModel, transcript: Transcript) {
        ScriptRegistry.update(configuration.tag) { $0.prewarms += 1 }
    }

    func respond(to request: LanguageModelExecutorGenerationRequest, model: ScriptedLanguageModel,
                 streamingInto channel: LanguageModelExecutorGenerationChannel) async throws {
        ScriptRegistry.update(configuration.tag) { $0.requests.append(request) }
        let responseID = UUID().uuidString
        let reasoningID = UUID().uuidString
        let toolCallsID = UUID().uuidString
        for step in configuration.script {
            try Task.checkCancellation()
            switch step {
            case .text(let text, let tokens):
                await channel.send(.response(entryID: responseID, action: .appendText(text, tokenCount: tokens)))
            case .loggedText(let text):
                if let k = request.generationOptions.logProbabilities?.alternatives {
                    let entry = TokenLogProbability(token: text, bytes: Array(text.utf8), logProbability: -0.5,
                                                    topAlternatives: (0..<k).map {
                                                        .init(token: "alt\($0)", bytes: Array("alt\($0)".utf8), logProbability: -1 - Double($0))
                                                    })
                    await channel.send(.response(entryID: responseID, action: .updateMetadata([TokenLogProbability.metadataKey: [entry]])))
                }
                await channel.send(.response(entryID: responseID, action: .appendText(text, tokenCount: 1)))
            case .replaceText(let text):
                await channel.send(.response(entryID: responseID, action: .replaceTextSegment(text, tokenCount: 0)))
            case .reasoning(let text):
                await channel.send(.reasoning(entryID: reasoningID, action: .appendText(text, tokenCount: 1)))
            case .toolCall(let id, let name, let arguments):
                await channel.send(.toolCalls(entryID: toolCallsID, action: .toolCall(
                    id: id, name: name, action: .appendArguments(arguments, tokenCount: 1))))
            case .usage(let input, let cached, let output):
                await channel.send(.response(entryID: responseID, action: .updateUsage(
                    input: .init(totalTokenCount: input, cachedTokenCount: cached),
                    output: .init(totalTokenCount: output, reasoningTokenCount: 0))))
            case .fail(let failure):
                throw failure.error
            case .signal(let gate):
                TestGates.shared.open(gate)
            case .waitFor(let gate):
                await TestGates.shared.wait(gate)
            case .waitForCancellation:
                await withTaskCancellationHandler {
                    await TestGates.shared.wait("\(configuration.tag).never")
                } onCancel: { [tag = configuration.tag] in
                    TestGates.shared.open("\(tag).never")
                }
                TestGates.shared.open("\(configuration.tag).cancelled")
                throw CancellationError()
            }
        }
    }
}

/// Named one-shot gates, awaitable from async code and from plain threads.
final class TestGates: Sendable {
    static let shared = TestGates()

    private struct State {
        var opened: Set<String> = []
        var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
        var blocked: [String: [DispatchSemaphore]] = [:]
    }

    private let state = Locked(State())

    func open(_ name: String) {
        let (resumed, woken) = state.withLock { s in
            s.opened.insert(name)
            return (s.waiters.removeValue(forKey: name) ?? [], s.blocked.removeValue(forKey: name) ?? [])
        }
        for waiter in resumed { waiter.resume() }
        for semaphore in woken { semaphore.signal() }
    }

    func isOpen(_ name: String) -> Bool {
        state.withLock { $0.opened.contains(name) }
    }

    func wait(_ name: String) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.opened.contains(name) { return true }
                s.waiters[name, default: []].append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    /// Blocks the calling thread (never call it on the cooperative pool).
    func blockingWait(_ name: String) {
        let semaphore = DispatchSemaphore(value: 0)
        let now = state.withLock { s -> Bool in
            if s.opened.contains(name) { return true }
            s.blocked[name, default: []].append(semaphore)
            return false
        }
        if !now { semaphore.wait() }
    }
}
