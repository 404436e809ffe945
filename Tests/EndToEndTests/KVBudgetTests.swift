import Engine
import Foundation
import LoomSupport
import Testing
@testable import LocalBackend
@testable import Provider

/// `LocalLanguageModel.kvCacheBudget`: engines' KV caches stay within it, a request that finds
/// no room waits (in order, cancellably, within the model's timeout), and a budget below one
/// engine is refused before any compute. Runs on stories260K (tiny, template-less).
///
/// Holding an engine from the pool stands for a request in progress: it is exactly what a
/// request does, and it lets the tests decide when the engine comes back instead of racing a
/// generation that may already have finished.
@Suite(.serialized, .timeLimit(.minutes(30))) struct KVBudgetTests {
    static let context = 96
    static let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6)

    /// One engine's KV bytes for stories260K at `context` positions in F16, from the file's own
    /// hyper-parameters (2 tables × layers × positions × KV width × 2 bytes).
    static func engineBytes(context: Int = context) throws -> Int {
        let description = try ModelDescription(file: GGUFFile(path: SharedData.stories))
        return 2 * description.blockCount * context * KVCacheType.f16.rowBytes(elements: description.kvLength)
    }

    static func model(budget: Int?, timeout: Duration? = nil, variant: LocalLanguageModel.Variant = .sequential) -> LocalLanguageModel {
        var model = LocalLanguageModel(path: SharedData.stories, variant: variant, contextSize: context, threads: 1,
                                       kvCacheBudget: budget)
        model.timeout = timeout
        return model
    }

    @Test func `a budget below one engine is a typed error before any compute`() async throws {
        let bytes = try Self.engineBytes()
        let model = Self.model(budget: bytes - 1)
        let expected = LocalLanguageModelError.kvCacheBudgetTooSmall(budget: bytes - 1, engineBytes: bytes)
        #expect(throws: expected) { try LocalLanguageModel.Executor(configuration: model.executorConfiguration) }
        let session = LanguageModelSession(model: model)
        await #expect(throws: expected) { _ = try await session.respond(to: "Once upon a time", options: Self.greedy) }
        #expect(session.transcript.count == 0)
        // Exactly one engine's worth is enough.
        let fits = LanguageModelSession(model: Self.model(budget: bytes))
        _ = try await fits.respond(to: "Once upon a time", options: Self.greedy)
    }

    @Test func `the budget is part of the executor configuration and defaults to four engines`() async throws {
        let bytes = try Self.engineBytes()
        #expect(Self.model(budget: nil).executorConfiguration != Self.model(budget: 4 * bytes).executorConfiguration)
        let executor = try LocalLanguageModel.Executor(configuration: Self.model(budget: nil).executorConfiguration)
        #expect(executor.pool.engineBytes == bytes)
        #expect(executor.pool.budgetBytes == LocalLanguageModel.defaultConcurrentSequences * bytes)
        #expect(executor.pool.capacity == LocalLanguageModel.defaultConcurrentSequences)
        // The formula the budget uses is what an engine's cache really reserves, and what the
        // public unit for sizing a budget reports.
        let engine = try await executor.pool.borrow(for: [])
        #expect(engine.kvCacheBytes == bytes)
        executor.pool.giveBack(engine)
        #expect(try Self.model(budget: nil).kvCacheBytesPerSequence() == bytes)
        var wider = Self.model(budget: nil)
        wider.contextSize = 2 * Self.context
        #expect(try wider.kvCacheBytesPerSequence() == 2 * bytes)
        #expect(throws: LocalLanguageModelError.self) {
            try LocalLanguageModel(path: "/nonexistent/model.gguf").kvCacheBytesPerSequence()
        }
    }

    @Test func `with room for one engine, requests wait for it and get it in arrival order`() async throws {
        let bytes = try Self.engineBytes()
        let model = Self.model(budget: bytes * 3 / 2)
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let pool = executor.pool
        #expect(pool.capacity == 1)
        let held = try await pool.borrow(for: [])

        let first = Finished(), second = Finished()
        let a = Task {
            defer { first.mark() }
            return try await LanguageModelSession(model: model).respond(to: "The cat", options: Self.greedy).content
        }
        #expect(await eventually { pool.waitingCount == 1 })
        let b = Task {
            defer { second.mark() }
            return try await LanguageModelSession(model: model).respond(to: "A little dog", options: Self.greedy).content
        }
        #expect(await eventually { pool.waitingCount == 2 })
        // Nothing can run while the only engine the budget admits is held.
        #expect(!first.isMarked && !second.isMarked)
        #expect(pool.liveCount == 1)

        pool.giveBack(held)
        _ = try await a.value
        _ = try await b.value
        #expect(pool.peakLiveCount == 1)
        #expect(pool.lentCount == 0 && pool.waitingCount == 0)
        // First come, first served: the engine's last user — whose tokens it still holds — is
        // the request that arrived second.
        let engine = try #require(pool.borrowIfAvailable(for: []))
        defer { pool.giveBack(engine) }
        let tokenizer = try Tokenizer(gguf: GGUFFile(path: SharedData.stories))
        let last = try tokenizer.decode(engine.sequential.tokens)
        #expect(last.contains("A little dog"))
        #expect(!last.contains("The cat"))
    }

    @Test func `a cancelled waiting request leaves the queue and the held engine stays lent`() async throws {
        let bytes = try Self.engineBytes()
        let model = Self.model(budget: bytes, variant: .automatic)
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let pool = executor.pool
        let held = try await pool.borrow(for: [])
        let waiting = Task { try await LanguageModelSession(model: model).respond(to: "The cat", options: Self.greedy) }
        #expect(await eventually { pool.waitingCount == 1 })
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        #expect(pool.waitingCount == 0)
        #expect(pool.lentCount == 1)
        pool.giveBack(held)
        #expect(pool.lentCount == 0)
        // The pool still serves requests.
        _ = try await LanguageModelSession(model: model).respond(to: "The cat", options: Self.greedy)
        #expect(pool.peakLiveCount == 1)
    }

    @Test func `waiting for an engine counts against the model's timeout`() async throws {
        let bytes = try Self.engineBytes()
        let model = Self.model(budget: bytes, timeout: .milliseconds(30))
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let pool = executor.pool
        let held = try await pool.borrow(for: [])
        defer { pool.giveBack(held) }
        let error = try await #require(#expect(throws: LanguageModelError.self, "expected a timeout while the only engine is held") {
            _ = try await LanguageModelSession(model: model).respond(to: "The cat", options: Self.greedy)
        })
        if case .timeout = error {} else { Issue.record("expected .timeout, got \(error)") }
        #expect(pool.waitingCount == 0)
        #expect(pool.lentCount == 1)
    }

    @Test func `concurrent sessions under a one-engine budget match their solo runs`() async throws {
        let bytes = try Self.engineBytes()
        let model = Self.model(budget: bytes, variant: .automatic)
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let prompts = ["The cat", "A little dog", "Once upon a time", "Lily went"]
        var solo: [String] = []
        for p in prompts { solo.append(try await LanguageModelSession(model: model).respond(to: p, options: Self.greedy).content) }
        let together = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (i, p) in prompts.enumerated() {
                group.addTask { (i, try await LanguageModelSession(model: model).respond(to: p, options: Self.greedy).content) }
            }
            var out = [String](repeating: "", count: prompts.count)
            for try await (i, text) in group { out[i] = text }
            return out
        }
        #expect(together == solo)
        #expect(executor.pool.peakLiveCount == 1)
        // Pipelined engines are settled and given back on a worker thread after the response.
        #expect(await eventually { executor.pool.lentCount == 0 })
    }
}

/// Set once by a task that ended.
final class Finished: Sendable {
    private let flag = Locked(false)
    func mark() { flag.withLock { $0 = true } }
    var isMarked: Bool { flag.withLock { $0 } }
}

/// Whether `condition` became true within a generous bound of short sleeps: a safety net so a
/// handshake that never comes fails the test instead of hanging it, never a timing assertion.
func eventually(checks: Int = 12_000, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<checks {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
