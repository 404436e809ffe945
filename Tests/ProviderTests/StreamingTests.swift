import Foundation
import Testing
@testable import Provider

/// Streaming delivers snapshots as the executor produces them, and cancellation reaches it.
@Suite(.timeLimit(.minutes(2))) struct StreamingTests {
    @Test func `snapshots arrive while the executor is still generating`() async throws {
        let gate = UUID().uuidString
        // The executor cannot send "B" until the test has seen the "A" snapshot: a stream that
        // buffered until the end would deadlock here instead of passing.
        let model = MockLanguageModel(steps: [[.text("A"), .waitForGate(gate), .text("B")]])
        let session = LanguageModelSession(model: model)
        var seen: [String] = []
        for try await snapshot in session.streamResponse(to: "x") {
            seen.append(snapshot.content)
            #expect(snapshot.rawContent.isComplete == false)
            if snapshot.content == "A" { await Gates.shared.signal(gate) }
        }
        #expect(seen == ["A", "AB"])
        #expect(session.transcript.map(\.kindName) == ["prompt", "response"])
    }

    @Test func `collect returns the complete response`() async throws {
        let session = LanguageModelSession(model: MockLanguageModel(text: ["one ", "two"]))
        let response = try await session.streamResponse(to: "x").collect()
        #expect(response.content == "one two")
    }

    @Test func `cancelling the consuming task cancels the executor and reverts the transcript`() async throws {
        let started = UUID().uuidString
        let model = MockLanguageModel(steps: [[.text("partial"), .signal(started), .waitForCancellation, .text("never")]])
        let session = LanguageModelSession(model: model, instructions: "Rules")
        let consumer = Task {
            var last = ""
            for try await snapshot in session.streamResponse(to: "x") { last = snapshot.content }
            return last
        }
        await Gates.shared.wait(started)
        consumer.cancel()
        let outcome = await consumer.result
        if case .success(let text) = outcome { #expect(text != "partialnever") }
        try #require(await waitUntil { !session.isResponding }, "the turn never finished")
        #expect(MockRegistry.get(model.tag).sawCancellation)
        #expect(session.transcript.map(\.kindName) == ["instructions"])
    }

    @Test func `cancelling respond propagates into the executor`() async throws {
        let started = UUID().uuidString
        let model = MockLanguageModel(steps: [[.signal(started), .waitForCancellation]])
        let session = LanguageModelSession(model: model)
        let task = Task { try await session.respond(to: "x") }
        await Gates.shared.wait(started)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(MockRegistry.get(model.tag).sawCancellation)
        #expect(session.transcript.isEmpty)
        #expect(!session.isResponding)
    }

    @Test func `an executor that returns quietly after cancellation still fails the request`() async throws {
        let started = UUID().uuidString
        let gate = UUID().uuidString
        let model = MockLanguageModel(steps: [[.text("half"), .signal(started), .waitForGate(gate), .returnEarly]])
        let session = LanguageModelSession(model: model)
        let task = Task { try await session.respond(to: "x") }
        await Gates.shared.wait(started)
        task.cancel()
        await Gates.shared.signal(gate)
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(session.transcript.isEmpty)
    }

    /// Polls a condition the test cannot await directly (the stream's producer finishing), for at
    /// most 2,000 checks; false when it never held.
    private func waitUntil(_ condition: @Sendable () -> Bool) async -> Bool {
        for _ in 0..<2000 {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return condition()
    }
}
