import Engine
import Foundation
import LoomSupport
import Testing
@testable import LocalBackend
@testable import Provider

/// A thousand streaming requests on stories260K, each cancelled at a seeded random point —
/// before it starts, while it waits for an engine, mid-prefill or mid-generation — must all end,
/// and leave the pool with every engine back, nobody waiting and no worker thread running.
@Suite(.serialized, .timeLimit(.minutes(30))) struct CancellationStormTests {
    /// Where a request is cancelled.
    enum CancelPoint: Sendable {
        /// The task is cancelled as soon as it is created (it may not have started).
        case immediately
        /// The consumer cancels its own task after this many snapshots (0: before reading any).
        case afterSnapshots(Int)
        /// Another task cancels it after yielding this many times (an arbitrary moment).
        case afterYields(Int)
        /// Not cancelled: runs to the end (keeps engines cycling through the pool).
        case never
    }

    struct Plan: Sendable {
        let prompt: String
        let schema: Bool
        let cancel: CancelPoint
    }

    static let requests = 1_000
    /// Requests in flight at once: more than the budget's engines, so some always wait.
    static let window = 12
    static let engines = 3

    static func plans(seed: UInt64) -> [Plan] {
        var rng = SplitMix64(seed: seed)
        let prompts = ["The cat", "Once upon a time", "A little dog", "Lily went", "The sun", "Tom and Sue"]
        return (0..<requests).map { _ in
            let cancel: CancelPoint
            switch rng.next() % 8 {
            case 0: cancel = .immediately
            case 1, 2, 3: cancel = .afterSnapshots(Int(rng.next() % 6))
            case 4, 5, 6: cancel = .afterYields(Int(rng.next() % 64))
            default: cancel = .never
            }
            return Plan(prompt: prompts[Int(rng.next() % UInt64(prompts.count))], schema: rng.next() % 4 == 0, cancel: cancel)
        }
    }

    @Test func `a thousand requests cancelled at random points all end and return every engine`() async throws {
        let description = try ModelDescription(file: GGUFFile(path: SharedData.stories))
        let context = 80
        let engineBytes = 2 * description.blockCount * context * KVCacheType.f16.rowBytes(elements: description.kvLength)
        // Automatic: free text runs on the pipelined producer thread, schemas on the sequential
        // engine under a grammar, both from the same pool.
        let model = LocalLanguageModel(path: SharedData.stories, variant: .automatic, contextSize: context, threads: 1,
                                       kvCacheBudget: Self.engines * engineBytes)
        let executor = try LocalLanguageModel.Executor(configuration: model.executorConfiguration)
        let pool = executor.pool
        let schema = try GenerationSchema(jsonSchema: #"{"type":"string","maxLength":12}"#)
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6)

        let tally = Tally()
        let plans = Self.plans(seed: 0x5EED_0009)
        var launched = 0
        while launched < plans.count {
            let batch = plans[launched..<min(launched + Self.window, plans.count)]
            for plan in batch {
                let task = Task {
                    defer { tally.ended.withLock { $0 += 1 } }
                    do {
                        let session = LanguageModelSession(model: model)
                        var snapshots = 0
                        func consumed() {
                            snapshots += 1
                            if case .afterSnapshots(let k) = plan.cancel, snapshots >= k { withUnsafeCurrentTask { $0?.cancel() } }
                        }
                        if case .afterSnapshots(0) = plan.cancel { withUnsafeCurrentTask { $0?.cancel() } }
                        if plan.schema {
                            for try await _ in session.streamResponse(to: plan.prompt, schema: schema, includeSchemaInPrompt: false,
                                                                      options: options) { consumed() }
                        } else {
                            for try await _ in session.streamResponse(to: plan.prompt, options: options) { consumed() }
                        }
                        // A cancelled stream may also end quietly; either way the request ended.
                        if Task.isCancelled { tally.cancelled.withLock { $0 += 1 } } else { tally.completed.withLock { $0 += 1 } }
                    } catch is CancellationError {
                        tally.cancelled.withLock { $0 += 1 }
                    } catch {
                        tally.unexpected.withLock { $0.append("\(error)") }
                    }
                }
                switch plan.cancel {
                case .immediately: task.cancel()
                case .afterYields(let n):
                    Task {
                        for _ in 0..<n { await Task.yield() }
                        task.cancel()
                    }
                case .afterSnapshots, .never: break
                }
            }
            launched += batch.count
            // Bounded: a request that never ends fails the test instead of hanging it.
            let target = launched
            try #require(await eventually(checks: 30_000, { tally.ended.withLock { $0 } == target }),
                         "only \(tally.ended.withLock { $0 }) of \(target) requests ended")
        }

        print("storm: \(tally.completed.withLock { $0 }) completed, \(tally.cancelled.withLock { $0 }) cancelled, "
              + "peak \(pool.peakLiveCount) engines alive")
        #expect(tally.ended.withLock { $0 } == Self.requests)
        #expect(tally.unexpected.withLock { $0 } == [])
        #expect(tally.completed.withLock { $0 } + tally.cancelled.withLock { $0 } == Self.requests)
        #expect(tally.cancelled.withLock { $0 } > 0)
        #expect(tally.completed.withLock { $0 } > 0)
        // A stream ends for its consumer before the turn task behind it has wound down, and
        // pipelined engines come back through a worker thread: wait (bounded) for both.
        #expect(await eventually { pool.lentCount == 0 && pool.waitingCount == 0 && executor.workerThreads.running == 0 })
        #expect(pool.lentCount == 0, "engines still lent")
        #expect(pool.waitingCount == 0, "requests still queued")
        #expect(executor.workerThreads.running == 0, "worker threads still running")
        #expect(pool.idleCount == pool.liveCount)
        #expect(pool.peakLiveCount <= Self.engines)
        // The pool still serves a request to the end.
        let after = try await LanguageModelSession(model: model).respond(to: "The cat", options: options)
        #expect(!after.content.isEmpty)
    }
}

/// What the storm's requests did, counted from their tasks.
final class Tally: Sendable {
    let ended = Locked(0)
    let completed = Locked(0)
    let cancelled = Locked(0)
    let unexpected = Locked<[String]>([])
}

/// A small seeded generator (SplitMix64), so the storm's plan is the same on every run.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
