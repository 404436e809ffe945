import Foundation
import LoomSupport
import Testing
@testable import Provider

/// A one-way signal a test awaits; the suite's time limit fails a handshake that never comes.
final class Latch: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in waiters { w.resume() }
    }

    var isOpen: Bool { state.withLock { $0.open } }

    /// Suspends until opened, ignoring cancellation (what a tool that never checks does).
    func waitIgnoringCancellation() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.open { return true }
                s.waiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    /// Suspends until the latch opens, then reports that it is open.
    func opened() async -> Bool {
        await waitIgnoringCancellation()
        return isOpen
    }
}

/// Waits until cancelled, then reports it: a hanging tool that cooperates with cancellation.
struct HangingTool: Tool {
    struct Arguments: Decodable, Generable {
        static var generationSchema: GenerationSchema { GenerationSchema(type: Arguments.self, properties: []) }
    }
    let name = "hang"
    let description = "Never answers."
    let started = Latch()
    let cancelled = Latch()

    func call(arguments: Arguments) async throws -> String {
        started.open()
        let wake = Latch()
        await withTaskCancellationHandler {
            await wake.waitIgnoringCancellation()
        } onCancel: {
            wake.open()
        }
        cancelled.open()
        throw CancellationError()
    }
}

/// Hangs until the test releases it, whatever cancellation says, then records whether its task
/// had been cancelled: a tool that never checks for cancellation.
struct StubbornTool: Tool {
    struct Arguments: Decodable, Generable {
        static var generationSchema: GenerationSchema { GenerationSchema(type: Arguments.self, properties: []) }
    }
    let name = "stubborn"
    let description = "Ignores cancellation."
    let release = Latch()
    let finished = Latch()
    /// Opened when the tool, once released, finds its task cancelled.
    let sawCancellation = Latch()

    func call(arguments: Arguments) async throws -> String {
        await release.waitIgnoringCancellation()
        if Task.isCancelled { sawCancellation.open() }
        finished.open()
        return "late"
    }
}

@Suite(.timeLimit(.minutes(2))) struct ToolTimeoutTests {
    @Test func `a hanging tool is cancelled at the session's tool-call timeout`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "hang", arguments: "{}")], [.text("never")]])
        let tool = HangingTool()
        let session = LanguageModelSession(model: model, tools: [tool])
        session.toolCallTimeout = .milliseconds(20)
        let before = session.transcript
        do {
            _ = try await session.respond(to: "x")
            Issue.record("expected the tool call to time out")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "hang")
            #expect(error.underlyingError as? LanguageModelSession.ToolLoopError
                == .toolCallTimedOut(name: "hang", timeout: .milliseconds(20)))
        }
        #expect(tool.started.isOpen)
        // The tool's task was cancelled: it woke from its wait through its cancellation handler.
        #expect(await tool.cancelled.opened())
        #expect(session.transcript == before)
        #expect(!session.isResponding)
        // Only the first step ran: the model was not asked again after the failed call.
        #expect(MockRegistry.get(model.tag).requests.count == 1)
    }

    @Test func `a tool that ignores cancellation does not hold the turn past its timeout`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "stubborn", arguments: "{}")], [.text("never")]])
        let tool = StubbornTool()
        let session = LanguageModelSession(model: model, tools: [tool])
        session.toolCallTimeout = .milliseconds(20)
        await #expect(throws: LanguageModelSession.ToolCallError.self) { _ = try await session.respond(to: "x") }
        // The turn ended while the tool was still stuck: it is released only now.
        #expect(!tool.finished.isOpen)
        tool.release.open()
        #expect(await tool.finished.opened())
        #expect(tool.sawCancellation.isOpen)
    }

    @Test func `a tool that answers within its timeout runs as usual`() async throws {
        let model = MockLanguageModel(steps: [
            [.toolCall(id: "c", name: "weather", arguments: "{\"city\":\"Oslo\"}")], [.text("Cold.")],
        ])
        let tool = WeatherTool()
        let session = LanguageModelSession(model: model, tools: [tool])
        session.toolCallTimeout = .seconds(600)
        let response = try await session.respond(to: "Weather?")
        #expect(response.content == "Cold.")
        #expect(tool.log.cities.withLock { $0 } == ["Oslo"])
    }

    @Test func `a throwing tool with a timeout still surfaces its own error`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "broken", arguments: "{}")], [.text("x")]])
        let session = LanguageModelSession(model: model, tools: [FailingTool()])
        session.toolCallTimeout = .seconds(600)
        do {
            _ = try await session.respond(to: "x")
            Issue.record("expected ToolCallError")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.underlyingError is FailingTool.Broken)
        }
    }

    @Test func `cancelling the caller cancels a tool running under a timeout`() async throws {
        let model = MockLanguageModel(steps: [[.toolCall(id: "c", name: "hang", arguments: "{}")], [.text("never")]])
        let tool = HangingTool()
        let session = LanguageModelSession(model: model, tools: [tool])
        session.toolCallTimeout = .seconds(600)
        let task = Task { try await session.respond(to: "x") }
        #expect(await tool.started.opened())
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(await tool.cancelled.opened())
    }

    @Test func `the tool-call timeout defaults to none`() {
        let session = LanguageModelSession(model: MockLanguageModel(text: ["x"]))
        #expect(session.toolCallTimeout == nil)
    }
}
